// Converts the price table of the npm package @pydantic/genai-prices
// (MIT) into paneteam's data file: the token prices of every model, with
// how each is matched by name, dated. Usage:
//   node convert.mjs <the package's unpacked folder> <date YYYY-MM-DD>
// It prints the data file on stdout. The package keeps its table inside
// its bundle (dist/index.js) as the first array literal of providers; the
// bundle is read as text, that literal cut out and evaluated alone, so
// none of the package's own code runs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";

const [dir, date] = process.argv.slice(2);
if (!dir || !/^\d{4}-\d{2}-\d{2}$/.test(date || "")) {
  console.error("usage: node convert.mjs PACKAGE_DIR YYYY-MM-DD");
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
const src = readFileSync(join(dir, "dist", "index.js"), "utf8");
const providers = vm.runInNewContext("(" + providerArray(src) + ")", {}, { timeout: 5000 });
if (!Array.isArray(providers) || !providers.length || !providers.every((p) => p && p.id && Array.isArray(p.models))) {
  throw new Error("the table found is not a list of providers with models: the package's bundle changed shape");
}

// The token prices paneteam uses (per million tokens); a model priced
// otherwise (per request, per image) keeps only these.
const KEYS = ["input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok"];

function prices(p) {
  const out = {};
  for (const k of KEYS) {
    const v = p[k];
    if (typeof v === "number") out[k] = v;
    else if (v && typeof v === "object" && typeof v.base === "number") {
      out[k] = { base: v.base, tiers: (v.tiers || []).map((t) => ({ start: t.start, price: t.price })) };
    }
  }
  return out;
}

const out = {
  source: "npm " + pkg.name + "@" + pkg.version,
  license: pkg.license,
  homepage: pkg.homepage,
  date,
  providers: providers.map((p) => ({
    id: p.id,
    ...(p.model_match ? { model_match: p.model_match } : {}),
    ...(p.provider_match ? { provider_match: p.provider_match } : {}),
    ...(p.fallback_model_providers ? { fallback_model_providers: p.fallback_model_providers } : {}),
    models: p.models.map((m) => ({
      id: m.id,
      match: m.match,
      prices: Array.isArray(m.prices)
        ? m.prices.map((c) => ({ ...(c.constraint ? { constraint: c.constraint } : {}), prices: prices(c.prices) }))
        : prices(m.prices),
    })),
  })),
};
process.stdout.write(JSON.stringify(out, null, 1) + "\n");

// providerArray cuts the first array literal that opens "[ { id:" out of
// the bundle, by counting brackets outside strings.
function providerArray(s) {
  const m = /=\s*\[\s*\{\s*id:/.exec(s);
  if (!m) throw new Error("no table of providers in the bundle");
  const start = s.indexOf("[", m.index);
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (c === '"' || c === "'" || c === "`") {
      for (i++; i < s.length && s[i] !== c; i++) if (s[i] === "\\") i++;
      continue;
    }
    if (c === "[" || c === "{" || c === "(") depth++;
    else if (c === "]" || c === "}" || c === ")") {
      depth--;
      if (depth === 0) return s.slice(start, i + 1);
    }
  }
  throw new Error("the table of providers does not end");
}
