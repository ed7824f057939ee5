import { evaluateFatigue, fatigueAfterEngagement, INITIAL_FATIGUE, type FatigueState } from "../fatigue";
import type { Importance } from "../importance";

const SETTINGS = { after: 3, pauseSeconds: 86_400 };
const t = (iso: string) => new Date(iso);

// Plays messages through the state machine the way the pipeline persists state:
// stateIfQueued when allowed, stateToStore (if any) when suppressed.
function play(
  steps: { at: string; sendAt?: string; importance?: Importance; id?: string; engaged?: boolean }[],
  start: FatigueState | null = null,
) {
  let state = start;
  return steps.map((step, i) => {
    if (step.engaged) state = fatigueAfterEngagement();
    const verdict = evaluateFatigue({
      state,
      settings: SETTINGS,
      importance: step.importance ?? "normal",
      messageId: step.id ?? `msg_${i}`,
      now: t(step.at),
      sendAt: t(step.sendAt ?? step.at),
    });
    if (verdict.allowed) state = verdict.stateIfQueued;
    else if (verdict.stateToStore) state = verdict.stateToStore;
    return verdict.allowed ? "sent" : "fatigue";
  });
}

describe("fatigue sequences", () => {
  test("three ignored, then a pause of one day, then one probe, then the pause restarts", () => {
    expect(
      play([
        { at: "2024-01-01T10:00:00Z" },
        { at: "2024-01-01T11:00:00Z" },
        { at: "2024-01-01T12:00:00Z" },
        { at: "2024-01-01T13:00:00Z" }, // 4th: pause starts, until 2024-01-02T13:00
        { at: "2024-01-02T12:59:59Z" }, // still paused
        { at: "2024-01-02T13:00:00Z" }, // pause over: the probe
        { at: "2024-01-02T14:00:00Z" }, // probe went out and was ignored: pause restarts until 01-03T14:00
        { at: "2024-01-03T13:59:00Z" }, // paused
        { at: "2024-01-03T14:00:00Z" }, // second probe
      ]),
    ).toEqual(["sent", "sent", "sent", "fatigue", "fatigue", "sent", "fatigue", "fatigue", "sent"]);
  });

  test("engagement resets the counter and ends the pause at once", () => {
    expect(
      play([
        { at: "2024-01-01T10:00:00Z" },
        { at: "2024-01-01T11:00:00Z" },
        { at: "2024-01-01T12:00:00Z" },
        { at: "2024-01-01T13:00:00Z" }, // pause starts
        { at: "2024-01-01T14:00:00Z", engaged: true }, // opened something: counting again from zero
        { at: "2024-01-01T15:00:00Z" },
        { at: "2024-01-01T16:00:00Z" },
        { at: "2024-01-01T17:00:00Z" }, // fourth since engagement
      ]),
    ).toEqual(["sent", "sent", "sent", "fatigue", "sent", "sent", "sent", "fatigue"]);
  });

  test("an engaged probe (probeEngaged flag) lets messages flow again", () => {
    const probing: FatigueState = {
      sentSinceEngagement: 4,
      pausedUntil: null,
      probeMessageId: "msg_probe",
      probeSentAt: t("2024-01-02T13:00:00Z"),
      probeEngaged: true,
    };
    expect(play([{ at: "2024-01-02T14:00:00Z" }, { at: "2024-01-02T15:00:00Z" }], probing)).toEqual([
      "sent",
      "sent",
    ]);
  });

  test("a probe that has not gone out yet is not judged; later messages wait", () => {
    const probing: FatigueState = {
      ...INITIAL_FATIGUE,
      sentSinceEngagement: 4,
      probeMessageId: "msg_probe",
      probeSentAt: t("2024-01-03T08:00:00Z"),
    };
    const verdict = evaluateFatigue({
      state: probing,
      settings: SETTINGS,
      importance: "normal",
      messageId: "m",
      now: t("2024-01-02T23:00:00Z"),
      sendAt: t("2024-01-03T08:00:00Z"),
    });
    expect(verdict).toEqual({ allowed: false, stateToStore: null });
  });

  test("high and critical are never paused, and still count", () => {
    expect(
      play([
        { at: "2024-01-01T10:00:00Z" },
        { at: "2024-01-01T11:00:00Z" },
        { at: "2024-01-01T12:00:00Z" },
        { at: "2024-01-01T13:00:00Z" }, // pause starts
        { at: "2024-01-01T14:00:00Z", importance: "high" },
        { at: "2024-01-01T15:00:00Z", importance: "critical" },
        { at: "2024-01-01T16:00:00Z", importance: "low" },
      ]),
    ).toEqual(["sent", "sent", "sent", "fatigue", "sent", "sent", "fatigue"]);
  });

  test("a message scheduled after the pause ends becomes the probe", () => {
    const paused: FatigueState = {
      ...INITIAL_FATIGUE,
      sentSinceEngagement: 3,
      pausedUntil: t("2024-01-02T13:00:00Z"),
    };
    const verdict = evaluateFatigue({
      state: paused,
      settings: SETTINGS,
      importance: "normal",
      messageId: "msg_probe",
      now: t("2024-01-02T12:00:00Z"),
      sendAt: t("2024-01-02T14:00:00Z"),
    });
    expect(verdict).toEqual({
      allowed: true,
      stateIfQueued: {
        sentSinceEngagement: 4,
        pausedUntil: null,
        probeMessageId: "msg_probe",
        probeSentAt: t("2024-01-02T14:00:00Z"),
        probeEngaged: false,
      },
    });
  });

  test("exact states: counting, pause start, probe ignored", () => {
    const base = {
      settings: SETTINGS,
      importance: "normal" as const,
      messageId: "msg_x",
      now: t("2024-01-01T10:00:00Z"),
      sendAt: t("2024-01-01T10:00:00Z"),
    };
    expect(evaluateFatigue({ ...base, state: null })).toEqual({
      allowed: true,
      stateIfQueued: { ...INITIAL_FATIGUE, sentSinceEngagement: 1 },
    });
    expect(evaluateFatigue({ ...base, state: { ...INITIAL_FATIGUE, sentSinceEngagement: 3 } })).toEqual({
      allowed: false,
      stateToStore: { ...INITIAL_FATIGUE, sentSinceEngagement: 3, pausedUntil: t("2024-01-02T10:00:00Z") },
    });
    expect(
      evaluateFatigue({
        ...base,
        state: {
          ...INITIAL_FATIGUE,
          sentSinceEngagement: 4,
          probeMessageId: "msg_p",
          probeSentAt: t("2024-01-01T09:00:00Z"),
        },
      }),
    ).toEqual({
      allowed: false,
      stateToStore: { ...INITIAL_FATIGUE, sentSinceEngagement: 4, pausedUntil: t("2024-01-02T10:00:00Z") },
    });
  });
});
