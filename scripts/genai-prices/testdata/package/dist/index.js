const E = [
  {
    id: "anthropic",
    name: "Anthropic",
    description: `A description with brackets ] } ) and a "quote"`,
    model_match: { contains: "claude" },
    models: [
      {
        id: "claude-test",
        name: "Claude ] test",
        match: { or: [{ starts_with: "claude-test" }, { regex: "^claude-t\\d{8}$" }] },
        prices: { input_mtok: 3, output_mtok: 15, cache_read_mtok: 0.3, cache_write_mtok: 3.75, requests_kcount: 1 }
      },
      {
        id: "claude-long",
        match: { equals: "claude-long" },
        prices: [
          { prices: { input_mtok: { base: 3, tiers: [{ start: 2e5, price: 6 }] }, output_mtok: 15 } },
          { constraint: { start_date: "2026-03-13", type: "start_date" }, prices: { input_mtok: 2, output_mtok: 10 } }
        ]
      }
    ]
  }
], J = { audio_seconds: { per: 3600 } };
function notRun() { throw new Error("the package's code ran"); }
notRun();
export { J as units };
