import { Command, Option } from "commander";
import { QUEUE_NAMES, retryDeadJobs, type QueueName } from "@svc/queue";
import { formatTable } from "../format-table";
import { withExample } from "../help-text";
import { reopenGivenUpMessages } from "../reopen-given-up-messages";
import type { Session } from "../session";

export function jobsCommand(parent: Command, s: Session): Command {
  const jobs = parent.command("jobs").description("inspect and repair background jobs");

  jobs
    .command("retry-dead")
    .description(
      "re-queue dead jobs (attempts used up or failed permanently) with fresh attempts, and reopen messages that failed with 'gave up: …'",
    )
    .addOption(
      new Option("--queue <name>", "only this queue (default: every queue but scheduler)").choices(
        QUEUE_NAMES,
      ),
    )
    .option("--json", "print {dead_jobs: {queue: count}, reopened_messages} as JSON")
    .addHelpText(
      "after",
      "\nGiven-up messages go back to queued with a new delivery job; they are reopened unless --queue names a queue other than delivery.",
    )
    .action(async (options: { queue?: QueueName; json?: boolean }) => {
      const queues = await s.queues();
      const deadJobs = await retryDeadJobs(queues, { queue: options.queue });
      // Reopened messages are delivery work: `--queue ingest` leaves them alone.
      const reopen = options.queue === undefined || options.queue === "delivery";
      const reopened = reopen
        ? (await reopenGivenUpMessages({ prisma: await s.prisma(), queues, now: s.now })).reopened
        : null;
      if (options.json) {
        s.out(JSON.stringify({ dead_jobs: deadJobs, reopened_messages: reopened }, null, 2));
        return;
      }
      const rows = Object.entries(deadJobs).map(([queue, count]) => [queue, String(count)]);
      for (const line of formatTable([["QUEUE", "RE-QUEUED"], ...rows])) s.out(line);
      if (reopened !== null) s.out(`reopened ${reopened} given-up message${reopened === 1 ? "" : "s"}`);
    });
  withExample(
    jobs.commands.find((c) => c.name() === "retry-dead")!,
    "$ svcctl jobs retry-dead --queue delivery",
  );

  return jobs;
}
