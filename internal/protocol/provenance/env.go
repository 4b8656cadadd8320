package provenance

// EnvLeadVerifyKey carries Claude Code's --lead-verify-key to a teammate
// paneteam runs for Claude's lead (and to its MCP server): entries in the
// lead's name are believed only when signed with that key.
const EnvLeadVerifyKey = "PANETEAM_LEAD_VERIFY_KEY"
