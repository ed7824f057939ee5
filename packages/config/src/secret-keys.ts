// Recognises setting names that would hold a credential, so a configuration file never carries one:
// credentials come from the environment, named by a `<setting>_env` setting instead.

const SECRET_WORDS = new Set([
  "secret",
  "secrets",
  "password",
  "passwd",
  "credential",
  "credentials",
  "authorization",
]);
const SECRET_ENDINGS = [
  "token",
  "api_key",
  "apikey",
  "private_key",
  "access_key",
  "auth_key",
  "signing_key",
  "secret_key",
];

export function looksLikeSecretKey(name: string): boolean {
  // camelCase reads like snake_case: `authToken` is `auth_token`.
  const key = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  if (key.endsWith("_env")) return false;
  if (key === "key") return true;
  if (key.split(/[_.-]/).some((word) => SECRET_WORDS.has(word))) return true;
  return SECRET_ENDINGS.some((ending) => key === ending || key.endsWith(`_${ending}`));
}

/** Environment variables that carry the service's own secrets, by the path people tend to write. */
const SECRET_HINTS: Record<string, string> = {
  secret_key: "SVC_SECRET_KEY",
  "approvals.callback_secret": "SVC_CALLBACK_SECRET",
  "approvals.secret": "SVC_CALLBACK_SECRET",
  "screening.api_key": "SVC_SCREENING_API_KEY",
  "ai.api_key": "SVC_AI_API_KEY",
};

export function secretKeyMessage(path: string, key: string): string {
  const variable = SECRET_HINTS[path] ?? SECRET_HINTS[key];
  return variable
    ? `secrets are read only from the environment: set ${variable} instead`
    : `secrets are read only from the environment: write "${key}_env: <VARIABLE NAME>" and set that variable`;
}
