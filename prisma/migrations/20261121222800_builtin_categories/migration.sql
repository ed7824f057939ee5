-- Built-in categories (SPEC 1.2): they exist from the first start and cannot be deleted.
INSERT INTO "categories" ("key", "description", "frequency_caps", "respect_quiet_hours", "allow_unsubscribe", "marketing", "builtin", "updated_at")
VALUES
  ('transactional', 'Receipts, one-time codes and alerts: no caps, quiet hours ignored, no unsubscribe.', '[]', false, false, false, true, CURRENT_TIMESTAMP),
  ('marketing', 'Promotional messages: 2 per day, 5 per week, quiet hours respected, unsubscribe allowed.', '[{"period": 86400, "limit": 2}, {"period": 604800, "limit": 5}]', true, true, true, true, CURRENT_TIMESTAMP)
ON CONFLICT ("key") DO NOTHING;
