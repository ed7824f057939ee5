#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded on these machines.
# `prisma generate` only needs the path to exist; anything that would really call the engine
# (migrate, db push) fails loudly here instead of silently doing nothing. Migrations are applied
# by the project's own runner: `svcctl migrate` (packages/store/src/migrations).
echo "svc: Prisma's schema engine is not installed; use 'npm run svcctl -- migrate'" >&2
exit 1
