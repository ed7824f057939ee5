import { cutToCharacters, reviewNoticeData, reviewNoticeKey } from "../review-notice";

const expires = new Date("2026-05-02T12:00:00Z");

test("a held message's notice carries exactly the fields reviewers need, the body cut to 500 characters", () => {
  const body = "x".repeat(499) + "€" + "tail";
  expect(
    reviewNoticeData(
      {
        kind: "message",
        message_id: "msg_1",
        agent: "bot",
        agent_name: "Bot",
        recipient: "ada",
        category: "alerts",
        title: "Deploy",
        body,
        importance: "high",
        expires_at: expires,
      },
      true,
    ),
  ).toEqual({
    kind: "message",
    message_id: "msg_1",
    agent: "bot",
    agent_name: "Bot",
    recipient: "ada",
    category: "alerts",
    title: "Deploy",
    body: "x".repeat(499) + "€",
    importance: "high",
    expires_at: "2026-05-02T12:00:00.000Z",
    review_url: "[[svc:review_url]]",
  });
});

test("an approval request's notice has no review_url without a public URL", () => {
  const data = reviewNoticeData(
    {
      kind: "action",
      approval_id: "apr_1",
      agent: null,
      agent_name: null,
      title: "Refund?",
      body: "",
      importance: "high",
      expires_at: expires,
    },
    false,
  );
  expect(data).toEqual({
    kind: "action",
    approval_id: "apr_1",
    agent: null,
    agent_name: null,
    title: "Refund?",
    body: "",
    importance: "high",
    expires_at: "2026-05-02T12:00:00.000Z",
  });
});

test("characters are cut by code point, never inside a surrogate pair", () => {
  expect(cutToCharacters("ab😀cd", 3)).toBe("ab😀");
  expect(cutToCharacters("abc", 5)).toBe("abc");
});

test("one notice key per item and reviewer", () => {
  expect(reviewNoticeKey("msg_1", "ada")).toBe("review:msg_1:ada");
});
