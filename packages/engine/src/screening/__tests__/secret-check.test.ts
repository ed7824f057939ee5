import { findSecret, findSecrets, maskSecrets, maskSecretsIn, secretName } from "../secret-check";

// docs/screening.md "The secret check": realistic credentials hold, look-alikes pass. Tokens are
// assembled from parts so this file itself holds no scannable credential.

const join = (...parts: string[]) => parts.join("");
const PEM_BODY = [
  "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB",
  "aFDrBz9vFqU4yB8b7nBq3cWmLkZpFTS2T4JcAzI5b1P+0p1lpjM0HsSuhB4ov3Xl",
].join("\n");

const RULE = (name: string) => `@secretlint/secretlint-rule-${name}`;

describe("findSecret: credentials hold", () => {
  test.each<[string, string, string]>([
    ["AWS access key id", join("Upload with AKIA", "QYLPMN5HHHFPZAM2 today"), RULE("aws")],
    [
      "AWS secret access key",
      join("AWS_SECRET_ACCESS_KEY=", "Zr7Hq2Lx9VbN4mKp8sTd3FgY6wQa1JcU5eRo0iBn"),
      RULE("aws"),
    ],
    [
      "GitHub classic token",
      join("Your token: gh", "p_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"),
      RULE("github"),
    ],
    [
      "GitHub fine-grained token",
      join(
        "github",
        "_pat_",
        "11ABCDEFG0aBcDeFgHiJkL_",
        "mNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ012345678",
      ),
      RULE("github"),
    ],
    ["Slack bot token", join("xox", "b-2930582049-2983752938752-Kp8sTd3FgY6wQa1JcU5eRo0i"), RULE("slack")],
    [
      "Slack incoming webhook",
      join("Post to https://hooks.slack.com/services/", "T024BE7LD/B01ABCDEF12/aBcDeFgHiJkLmNoPqRsTuVwX"),
      RULE("slack"),
    ],
    [
      "RSA private key block",
      join("-----BEGIN RSA ", "PRIVATE KEY-----\n", PEM_BODY, "\n-----END RSA ", "PRIVATE KEY-----"),
      RULE("privatekey"),
    ],
    [
      "OpenSSH private key block",
      join("-----BEGIN OPENSSH ", "PRIVATE KEY-----\n", PEM_BODY, "\n-----END OPENSSH ", "PRIVATE KEY-----"),
      RULE("privatekey"),
    ],
    [
      "postgres URL with a password",
      join("DATABASE_URL is postgres://app:", "S3cr3tPassw0rd@db.internal:5432/prod"),
      RULE("database-connection-string"),
    ],
    [
      "MySQL URL with a password",
      join("mysql://root:", "hunter22@10.0.0.5/app"),
      RULE("database-connection-string"),
    ],
    [
      "MongoDB URL with a password",
      join("mongodb+srv://admin:", "Tr0ub4dor@cluster0.ab12c.mongodb.net/test"),
      RULE("database-connection-string"),
    ],
    ["Stripe live secret key", join("sk_li", "ve_51HqLyjWDarjtT1zdp7dcXGn7X2bPqsL0aKoGJ"), RULE("stripe")],
    ["npm token", join("np", "m_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"), RULE("npm")],
    ["GitLab token", join("glp", "at-AbCdEfGhIjKlMnOpQrSt"), RULE("gitlab")],
    ["a password in a URL", join("https://deploy:", "pa55word@ci.example.com/admin"), RULE("basicauth")],
    [
      "a secretlint-disable comment does not switch the check off",
      join("// secretlint-disable\n", "xox", "b-2930582049-2983752938752-Kp8sTd3FgY6wQa1JcU5eRo0i"),
      RULE("slack"),
    ],
  ])("%s", async (_name, text, rule) => {
    expect(await findSecret(["Deploy finished", text])).toBe(rule);
  });

  test("a secret in any rendered text (an e-mail variant's body) holds", async () => {
    const texts = [
      "Hi",
      "plain body",
      join("<p>key: <code>gh", "p_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx</code></p>"),
    ];
    expect(await findSecret(texts)).toBe(RULE("github"));
  });
});

describe("findSecret: look-alikes pass", () => {
  test.each<[string, string]>([
    ["AWS's documented example key id", "See AKIAIOSFODNN7EXAMPLE in the AWS docs"],
    ["an order number with AKIA in it", "Your order AKIA-1234 shipped"],
    ["a postgres URL without a password", "postgres://db.internal:5432/prod is back up"],
    ["prose about postgres", "postgres is down on db1:5432"],
    ["prose naming a token prefix", "GitHub tokens start with ghp_ and expire"],
    [
      "a public key block",
      "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    ],
    ["a commit hash", "commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b deployed"],
    ["a sha256", "checksum 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
    ["a link with a token-ish query", "https://example.com/reset?token=abc123&page=2"],
    ["a build name like a key", "Build sk-123 failed"],
    ["a UUID", "request 123e4567-e89b-12d3-a456-426614174000"],
    ["a masked password", "password: ********"],
    ["a URL with a user but no password", "https://deploy@ci.example.com/admin"],
  ])("%s", async (_name, text) => {
    expect(await findSecret(["Deploy finished", text])).toBeNull();
  });

  test("nothing to scan", async () => {
    expect(await findSecret([])).toBeNull();
  });
});

test("findSecrets: one scan for many messages, each hit attributed to its own message", async () => {
  const slack = join("xox", "b-2930582049-2983752938752-Kp8sTd3FgY6wQa1JcU5eRo0i");
  const pem = join("-----BEGIN RSA ", "PRIVATE KEY-----\n", PEM_BODY, "\n-----END RSA ", "PRIVATE KEY-----");
  expect(
    await findSecrets([
      ["Deploy finished", "all good"],
      ["Token", slack],
      [],
      ["Key", pem],
      ["postgres://db.internal:5432/prod is back"],
    ]),
  ).toEqual([null, RULE("slack"), null, RULE("privatekey"), null]);
});

describe('maskSecrets: a coding agent\'s tool call (docs/hooks.md "Secrets never travel")', () => {
  const accessKey = join("AKIA", "QYLPMN5HHHFPZAM2");
  const secretKey = join("Zr7Hq2Lx9VbN4mKp8sTd3", "FgY6wQa1JcU5eRo0iBn");
  const github = join("gh", "p_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx");

  test("each secret becomes [secret: <what>], the rest stays as written", async () => {
    expect(
      await maskSecrets([
        `aws configure set aws_access_key_id ${accessKey} && deploy`,
        "npm test",
        `export AWS_SECRET_ACCESS_KEY=${secretKey}; echo done`,
        `curl -H "Authorization: token ${github}" https://api.github.com`,
        join("psql postgres://app:", "S3cr3tPassw0rd@db.internal:5432/prod -c 'select 1'"),
      ]),
    ).toEqual([
      "aws configure set aws_access_key_id [secret: AWS access key] && deploy",
      "npm test",
      "export [secret: AWS secret access key]; echo done",
      'curl -H "Authorization: token [secret: GitHub token]" https://api.github.com',
      "psql [secret: database password] -c 'select 1'",
    ]);
  });

  test("every string of a JSON value, keys and other values untouched; nothing found: the same object", async () => {
    const input = { command: `echo ${accessKey}`, n: 3, nested: [{ key: accessKey }, true, null] };
    expect(await maskSecretsIn(input)).toStrictEqual({
      command: "echo [secret: AWS access key]",
      n: 3,
      nested: [{ key: "[secret: AWS access key]" }, true, null],
    });
    const clean = { command: "npm test" };
    expect(await maskSecretsIn(clean)).toBe(clean);
  });

  test("every rule has a name", () => {
    expect(secretName("@secretlint/secretlint-rule-aws", "AWSAccessKeyID")).toBe("AWS access key");
    expect(secretName("@secretlint/secretlint-rule-slack", "SLACK_TOKEN")).toBe("Slack token");
    expect(secretName("@secretlint/secretlint-rule-new-one", "X")).toBe("credential");
  });
});
