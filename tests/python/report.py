"""What the test clients share: run a scenario and print what it saw as one JSON document."""

import asyncio
import json
import sys


def run_and_print(scenario):
    """Runs the coroutine `scenario`; prints its result as JSON (exit 0), or the failure (exit 1)."""
    try:
        out = asyncio.run(scenario)
    except BaseException as e:  # the SDK wraps failures in exception groups
        while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        print(f"python client failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0
