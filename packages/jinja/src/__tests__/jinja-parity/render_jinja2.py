"""Renders templates with the real Jinja2, the reference svc's templates are compared against.

Reads {"cases": [{"source": str, "context": json-text, "html": bool}]} on stdin and prints one
result per case: {"ok": true, "text": ...} or {"ok": false, "error": "ExceptionType: message"}.
Jinja2 is set up as docs/templates.md describes svc: default syntax, ChainableUndefined, and
autoescape only for e-mail HTML bodies. Run with Debian's /usr/bin/python3 (python3-jinja2).
"""

import json
import sys

from jinja2 import ChainableUndefined, Environment

ENVIRONMENTS = {
    False: Environment(undefined=ChainableUndefined),
    True: Environment(undefined=ChainableUndefined, autoescape=True),
}


def render(case):
    try:
        template = ENVIRONMENTS[bool(case.get("html"))].from_string(case["source"])
        return {"ok": True, "text": template.render(json.loads(case["context"]))}
    except Exception as error:  # every failure is a result to compare, not a crash
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}


def main():
    request = json.load(sys.stdin)
    json.dump([render(case) for case in request["cases"]], sys.stdout)


if __name__ == "__main__":
    main()
