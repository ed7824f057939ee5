import { Command } from "commander";
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyView } from "@svc/engine";
import { formatTable } from "../format-table";
import { withExample } from "../help-text";
import { collectScopes, parseAgentKey, parseExpires, parseKeyName, parseLimit } from "../parse-options";
import type { Session } from "../session";

// `svcctl keys …` works on the database directly, so the first admin key can be made before any
// key exists (docs/svcctl.md).

interface CreateOptions {
  scope: string[];
  agent?: string;
  expires?: Date;
  json?: boolean;
}

export function keysCommand(parent: Command, s: Session): Command {
  const keys = parent
    .command("keys")
    .description("create, list and revoke API keys (straight in the database)");

  keys
    .command("create")
    .description("create an API key and print its secret once")
    .argument("<name>", "what the key is for (1-200 characters)", parseKeyName)
    .requiredOption(
      "-s, --scope <scope>",
      "scope to grant; repeat or comma-separate (events:write, messages:read, messages:write, recipients:read, recipients:write, admin)",
      collectScopes,
    )
    .option(
      "--agent <agent_key>",
      "bind the key to this agent (agent-bound keys cannot hold admin)",
      parseAgentKey,
    )
    .option(
      "--expires <when>",
      "expiry: an ISO 8601 date or time with zone, or a period from now (P30D, PT12H)",
      (value) => parseExpires(value, s.now()),
    )
    .option("--json", "print the created key as JSON, secret included")
    .addHelpText(
      "after",
      "\nThe secret goes to stdout, alone on its line (or as `key` in the JSON); it cannot be shown again.",
    )
    .action(async (name: string, options: CreateOptions) => {
      const created = await createApiKey(
        { prisma: await s.prisma(), now: s.now },
        { name, scopes: options.scope, agent: options.agent ?? null, expires_at: options.expires ?? null },
      );
      if (options.json) {
        s.out(JSON.stringify(created, null, 2));
        return;
      }
      s.out(created.key);
      s.err(
        `created ${created.id} '${created.name}' (${describeGrant(created)}); store the key now, it is not shown again`,
      );
    });

  withExample(
    keys.commands.find((c) => c.name() === "create")!,
    "$ svcctl keys create bootstrap -s admin",
    '$ svcctl keys create "support bot" -s events:write,messages:read --agent support-bot --expires P90D',
  );

  keys
    .command("list")
    .description("list API keys, newest first (secrets are never shown)")
    .option("--limit <n>", "keys per page, 1-500 (default 50)", parseLimit)
    .option("--cursor <cursor>", "continue after a previous page (printed as next_cursor)")
    .option("--json", "print the page as JSON: {items, next_cursor}")
    .action(async (options: { limit?: number; cursor?: string; json?: boolean }) => {
      const page = await listApiKeys(
        { prisma: await s.prisma() },
        { limit: options.limit, cursor: options.cursor },
      );
      if (options.json) {
        s.out(JSON.stringify(page, null, 2));
        return;
      }
      if (page.items.length === 0) {
        s.err("no API keys");
        return;
      }
      const header = ["ID", "NAME", "PREFIX", "SCOPES", "AGENT", "STATUS", "CREATED", "LAST USED"];
      const rows = page.items.map((key) => [
        key.id,
        key.name,
        key.prefix,
        key.scopes.join(","),
        key.agent ?? "-",
        statusOf(key, s.now()),
        key.created_at,
        key.last_used_at ?? "-",
      ]);
      for (const line of formatTable([header, ...rows])) s.out(line);
      if (page.next_cursor) s.err(`more keys: svcctl keys list --cursor ${page.next_cursor}`);
    });

  withExample(
    keys.commands.find((c) => c.name() === "list")!,
    "$ svcctl keys list --limit 20",
  );

  keys
    .command("revoke")
    .description("revoke an API key at once (revoking twice is harmless)")
    .argument("<id>", "the key's id (key_…)")
    .option("--json", "print the revoked key as JSON")
    .action(async (id: string, options: { json?: boolean }) => {
      const revoked = await revokeApiKey({ prisma: await s.prisma(), now: s.now }, id);
      if (options.json) s.out(JSON.stringify(revoked, null, 2));
      else s.out(`revoked ${revoked.id} '${revoked.name}' at ${revoked.revoked_at}`);
    });
  withExample(
    keys.commands.find((c) => c.name() === "revoke")!,
    "$ svcctl keys revoke key_01M804890ZHFY1AX5K2DNJ2G0A",
  );

  return keys;
}

function statusOf(key: ApiKeyView, now: Date): "active" | "revoked" | "expired" {
  if (key.revoked_at) return "revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= now.getTime()) return "expired";
  return "active";
}

function describeGrant(key: ApiKeyView): string {
  const parts = [`prefix ${key.prefix}`, `scopes ${key.scopes.join(",")}`];
  if (key.agent) parts.push(`agent ${key.agent}`);
  parts.push(key.expires_at ? `expires ${key.expires_at}` : "no expiry");
  return parts.join(", ");
}
