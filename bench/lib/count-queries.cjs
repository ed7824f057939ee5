// Preloaded into svc's worker processes by `npm run bench:fleet` (`node -r`): counts every query
// the process sends through `pg` (which Prisma's driver adapter uses too). `pg` sends each query as
// one round trip (no pipelining), so the count is the round trips; BEGIN, COMMIT and ROLLBACK are
// counted apart from the statements. The totals go to BENCH_QUERY_COUNT_FILE twice a second.
const { writeFileSync } = require("node:fs");
const pg = require("pg");

const file = process.env.BENCH_QUERY_COUNT_FILE;
const counts = { statements: 0, transactionControl: 0 };
const CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|START TRANSACTION)\b/i;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function query(config, ...rest) {
  const text = typeof config === "string" ? config : config && config.text;
  if (typeof text === "string" && CONTROL.test(text)) counts.transactionControl += 1;
  else counts.statements += 1;
  return original.call(this, config, ...rest);
};
if (file) {
  const flush = () => writeFileSync(file, JSON.stringify(counts));
  setInterval(flush, 500).unref();
  process.on("exit", flush);
}
