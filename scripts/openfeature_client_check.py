#!/usr/bin/env python3
"""Evaluates specd flags through the real OpenFeature Python SDK and its OFREP provider (PyPI), checking value,
variant, reason and error codes. Usage: openfeature_client_check.py BASE_URL TOKEN"""
import sys
from openfeature import api
from openfeature.evaluation_context import EvaluationContext
from openfeature.contrib.provider.ofrep import OFREPProvider

base, token = sys.argv[1], sys.argv[2]
passed = failed = 0

def check(name, got, expected):
    global passed, failed
    if got == expected:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: expected {expected!r}, got {got!r}")

def client(secret):
    api.set_provider(OFREPProvider(base, headers_factory=lambda: {"Authorization": f"Bearer {secret}"}), domain=secret)
    return api.get_client(domain=secret)

good = client(token)
ctx = EvaluationContext(targeting_key="alice", attributes={"plan": "pro"})
for kind, key, default, value, variant, reason in [
    ("boolean", "boolean-flag", False, True, "on", "STATIC"),
    ("string", "string-flag", "x", "hi", "greeting", "STATIC"),
    ("integer", "integer-flag", 0, 10, "ten", "STATIC"),
    ("float", "float-flag", 0.0, 0.5, "half", "STATIC"),
    ("object", "object-flag", {}, {"showImages": True, "title": "Check out these pics!", "imagesPerPage": 100}, "template", "STATIC"),
    ("string", "plan-flag", "x", "pro-copy", "pro", "TARGETING_MATCH"),
]:
    details = getattr(good, f"get_{kind}_details")(key, default, ctx)
    check(f"{key} value", details.value, value)
    check(f"{key} variant", details.variant, variant)
    check(f"{key} reason", str(details.reason.value if hasattr(details.reason, "value") else details.reason), reason)

missing = good.get_string_details("no-such-flag", "fallback", ctx)
check("missing value", missing.value, "fallback")
check("missing error", str(getattr(missing.error_code, "value", missing.error_code)), "FLAG_NOT_FOUND")

disabled = good.get_boolean_details("disabled-flag", False, ctx)
check("disabled value", disabled.value, False)
check("disabled reason", str(getattr(disabled.reason, "value", disabled.reason)), "DISABLED")

mismatch = good.get_integer_details("string-flag", 7, ctx)
check("type mismatch value", mismatch.value, 7)
check("type mismatch error", str(getattr(mismatch.error_code, "value", mismatch.error_code)), "TYPE_MISMATCH")

wrong = client("not-a-valid-token-0000")
denied = wrong.get_boolean_details("boolean-flag", False, ctx)
check("wrong token value", denied.value, False)
check("wrong token is an error", denied.error_code is not None, True)

print(f"openfeature: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
