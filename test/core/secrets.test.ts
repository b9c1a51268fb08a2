/**
 * The credentials `findSecrets` finds in a line's raw JSON text: each vendor format and context
 * rule on a planted value, and none on what a session is full of (hashes, UUIDs, ids, base64
 * images, paths, placeholders). Spans are the secret's characters exactly, and a masked form never
 * holds the secret.
 */

import { describe, expect, it } from "vitest";
import { findSecrets, maskSecret, MAX_SECRETS_PER_LINE } from "../../server/src/core/line/secrets";
import { parseLine } from "../../server/src/core/line/parse";
import { SessionDocument } from "../../server/src/core/session/document";
import { collectDiagnostics } from "../../server/src/features/diagnostics";

const line = (text: string) => JSON.stringify({ type: "message", id: "a1b2c3d4", parentId: null, message: { role: "user", content: text } });

/** The kinds and texts found in a line holding `text`. */
function found(text: string): [string, string][] {
  const l = line(text);
  return findSecrets(l).map((m) => [m.kind, l.slice(m.start, m.end)]);
}

const ANTHROPIC = `sk-ant-api03-${"Q7vX2mK9pL4nR8sT1wY5zB3cD6fG0hJ".repeat(3)}AA`;
const GITHUB = "ghp_R8sT1wY5zB3cD6fG0hJQ7vX2mK9pL4nAb123";
const PLANTED: [string, string, string][] = [
  ["anthropic-api-key", `key ${ANTHROPIC} here`, ANTHROPIC],
  ["openai-api-key", "sk-proj-Zk3Lm9Qw2Er7Ty5Ui1Op8As4Df6Gh0Jk", "sk-proj-Zk3Lm9Qw2Er7Ty5Ui1Op8As4Df6Gh0Jk"],
  ["github-token", `git remote set-url origin x; echo ${GITHUB}`, GITHUB],
  ["github-token", `github_pat_11ABCDEFG0${"a1B2c3D4e5".repeat(8)}`, `github_pat_11ABCDEFG0${"a1B2c3D4e5".repeat(8)}`],
  ["aws-access-key-id", "AKIAZ7Q2M3N4P5R6S7T2 is the id", "AKIAZ7Q2M3N4P5R6S7T2"],
  ["aws-secret-access-key", "aws_secret_access_key = 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", "Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1Pa0Sd9Fg8Hj7Kl6L"],
  ["google-api-key", "AIzaSyD4f5G6h7J8k9L0z1X2c3V4b5N6m7Q8w9E", "AIzaSyD4f5G6h7J8k9L0z1X2c3V4b5N6m7Q8w9E"],
  ["slack-token", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"],
  ["stripe-key", "stripe: sk_live_51Hx2Yz3Ab4Cd5Ef6Gh7Ij8Kl", "sk_live_51Hx2Yz3Ab4Cd5Ef6Gh7Ij8Kl"],
  ["npm-token", "//registry/:_authToken=npm_a1B2c3D4e5F6a1B2c3D4e5F6a1B2c3D4e5F6", "npm_a1B2c3D4e5F6a1B2c3D4e5F6a1B2c3D4e5F6"],
  [
    "jwt",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
  ],
  ["url-password", "psql postgres://admin:S3cr3tPa55@db.internal:5432/app", "S3cr3tPa55"],
  ["env-assignment", "cat .env\nDB_PASSWORD=Hunt3r2Go!\nPORT=8080", "Hunt3r2Go!"],
  ["generic-secret", 'curl -H "Authorization: Bearer Zx9Qa8Wb7Ec6Rd5Tf4Yg3Uh2"', "Zx9Qa8Wb7Ec6Rd5Tf4Yg3Uh2"],
];

describe("findSecrets", () => {
  it.each(PLANTED)("finds a %s", (kind, text, secret) => {
    expect(found(text)).toEqual([[kind, secret]]);
  });

  it("finds a private key block across the \\n escapes of its lines", () => {
    const key =
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDw==\n-----END OPENSSH PRIVATE KEY-----";
    const l = line(`cat id_ed25519\n${key}\n`);
    const [m] = findSecrets(l);
    expect(m?.kind).toBe("private-key");
    expect(JSON.parse(`"${l.slice(m!.start, m!.end)}"`)).toBe(key);
  });

  it("finds a key's name in a tool call's arguments and the value after it", () => {
    const l = JSON.stringify({ message: { content: [{ type: "toolCall", arguments: { api_key: "Q7vX2mK9pL4nR8sT1wY5z" } }] } });
    expect(findSecrets(l).map((m) => l.slice(m.start, m.end))).toEqual(["Q7vX2mK9pL4nR8sT1wY5z"]);
  });

  it.each([
    ["a git hash", "commit 3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a (HEAD)"],
    ["a SHA-256", "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
    ["a token that is a UUID", "token: 123e4567-e89b-12d3-a456-426614174000"],
    ["Pi's usage fields", '"totalTokens":2940,"cacheRead":1024'],
    ["a long number after a name", 'API_TOKEN=12345678901234567890123456789012 and "authCount": 98765432109876543210.5.'],
    ["a path after a name", "SECRET_FILE=/etc/app/secret.key"],
    ["a variable given another", "API_KEY=process.env.API_KEY and TOKEN=${TOKEN} and PASSWORD=changeme"],
    ["a template URL", "postgres://user:password@localhost:5432/db"],
    ["a URL with a port", "http://localhost:8080/path and https://example.com:443"],
    ["prose about tokens", "The tokenizer splits each token; the secret is to keep the password manager open."],
    ["a placeholder", "OPENAI_API_KEY=your-api-key-here and ANTHROPIC_API_KEY=sk-ant-xxxxxxxx"],
    ["an id after token", "tool call id: toolu_01Qm7RzK4vNp2sXa token_id=call_abc"],
    ["words joined by dashes", "auth: use-the-default-provider-settings"],
    // Code read by a tool: names of tokens given identifiers, calls, constants (Pi's own dependencies had each).
    ["an identifier after a name", "currentToken = scanner2.reScanSlashToken();"],
    ["a class name after a name", "exports.CreateOAuth2TokenCommand = CreateOAuth2TokenCommand;"],
    ["a minified export", "exports.HttpApiKeyAuthLocation=HttpApiKeyAuthLocation2;"],
    ["a constant's value", 'const RESET_PASSWORD = "reset_password"; const X_AWS_EC2_METADATA_TOKEN = "x-aws-ec2-metadata-token";'],
    ["a type after a name", "export declare const TOKEN: CharList;"],
    ["AWS's documented example key", "AccessKeyId: AKIAIOSFODNN7EXAMPLE"],
    ["a documentation URL", "new URL('https://abc:xyz@example.com')"],
  ])("finds nothing in %s", (_what, text) => {
    expect(found(text)).toEqual([]);
  });

  it("skips an image's base64 data", () => {
    // Random-looking base64 with a credential's name in it: an image's data is never text.
    const data = "QUtJQVo3UTJNM040UDVSNlM3VDJ0b2tlbj1aeDlRYThXYjdFYzZSZDVUZjRZZzNVaDI=".repeat(40);
    const l = JSON.stringify({ message: { content: [{ type: "image", data, mimeType: "image/png" }] } });
    expect(findSecrets(l)).toEqual([]);
  });

  it("reports at most MAX_SECRETS_PER_LINE in a line, and reads hostile lines to their end", () => {
    expect(findSecrets(`${GITHUB} `.repeat(500)).length).toBe(MAX_SECRETS_PER_LINE);
    // Anchors with no value, values cut by their bound, headers without a body: each ends.
    for (const hostile of [
      "TOKEN=".repeat(100_000),
      "token ".repeat(100_000),
      "://a:b@".repeat(100_000),
      "-----BEGIN PRIVATE KEY-----".repeat(20_000),
      "sk-".repeat(200_000),
      "A".repeat(1_000_000),
    ]) {
      expect(findSecrets(hostile).length).toBeLessThanOrEqual(MAX_SECRETS_PER_LINE);
    }
  });

  it("masks a secret with its vendor's prefix and at most its last four characters", () => {
    const l = line(`key ${ANTHROPIC}`);
    const [m] = findSecrets(l);
    expect(maskSecret(l, m!)).toBe(`sk-ant-…${ANTHROPIC.slice(-4)}`);
    const p = line("postgres://admin:S3cr3tPa55@db");
    expect(maskSecret(p, findSecrets(p)[0]!)).toBe("…");
  });

  it("is a line finding: the secret diagnostic's span is the secret's characters, its message never holds it", () => {
    const text = line(`use ${GITHUB} please`);
    const parsed = parseLine(text);
    expect(parsed.kind).toBe("value");
    const findings = parsed.kind === "value" ? parsed.findings.filter((f) => f.code === "secret") : [];
    expect(findings).toHaveLength(1);
    expect(text.slice(findings[0]!.span.start, findings[0]!.span.end)).toBe(GITHUB);
    expect(findings[0]!.message).not.toContain(GITHUB);
    expect(findings[0]!.message).toContain("GitHub token");
  });
});

describe("the secret finding across edits", () => {
  it("is found again in the edited line only: the other lines keep their parses", () => {
    const lines = [
      '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-0000000000bb","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/p"}',
      line(`first ${GITHUB}`).replace('"parentId":null', '"parentId":null,"timestamp":"2026-03-02T10:00:01.000Z"'),
      line("second, nothing secret").replace('"id":"a1b2c3d4","parentId":null', '"id":"b2","parentId":"a1b2c3d4","timestamp":"2026-03-02T10:00:02.000Z"'),
    ];
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    const secrets = () =>
      collectDiagnostics(doc)
        .diagnostics.filter((d) => d.code === "secret")
        .map((d) => d.range.start.line);
    expect(secrets()).toEqual([1]);
    const [header, first] = [doc.parsed[0], doc.parsed[1]];
    const at = lines[2]!.indexOf("nothing secret");
    doc.update([{ range: { start: { line: 2, character: at }, end: { line: 2, character: at + 7 } }, text: `key ${ANTHROPIC}` }], 2);
    expect(secrets()).toEqual([1, 2]);
    expect(doc.parsed[0]).toBe(header);
    expect(doc.parsed[1]).toBe(first);
  });
});
