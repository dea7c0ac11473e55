#!/usr/bin/env python3
"""Evaluates specd flags through the real OpenFeature Python SDK and its OFREP provider (PyPI), checking value,
variant, reason and error codes, `validUntil` in the flag metadata, and `track()` closing the loop through specd's
`POST /ofrep/v1/track` extension. Usage: openfeature_client_check.py BASE_URL TOKEN WRITE_TOKEN"""
import sys
from urllib.parse import urljoin
from openfeature import api
from openfeature.evaluation_context import EvaluationContext
from openfeature.provider import AbstractProvider
from openfeature.track import TrackingEventDetails
from openfeature.contrib.provider.ofrep import OFREPProvider

base, token, write_token = sys.argv[1], sys.argv[2], sys.argv[3]
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

# validUntil reaches SDK users as flag metadata: the instant the answer next changes by the clock alone.
window = good.get_boolean_details("window-flag", False, ctx)
check("window value", window.value, True)
check("window validUntil", window.flag_metadata.get("validUntil"), "2099-01-01T00:00:00.001Z")
check("static flag has no validUntil", "validUntil" in good.get_boolean_details("boolean-flag", False, ctx).flag_metadata, False)


class TrackingOFREPProvider(OFREPProvider):
    """OFREP defines no tracking endpoint, and the OFREP provider's track() is the SDK's no-op; this one posts a
    track call to specd's extension, with the provider's own session, headers and timeout, as a provider would."""

    def track(self, tracking_event_name, evaluation_context=None, tracking_event_details=None):
        context = {}
        if evaluation_context is not None:
            context.update(evaluation_context.attributes)
            if evaluation_context.targeting_key:
                context["targetingKey"] = evaluation_context.targeting_key
        body = {"context": context, "trackingEventName": tracking_event_name}
        if tracking_event_details is not None:
            details = dict(tracking_event_details.attributes)
            if tracking_event_details.value is not None:
                details["value"] = tracking_event_details.value
            body["trackingEventDetails"] = details
        response = self.session.post(
            urljoin(self._get_ofrep_api_url(), "track"), json=body, timeout=self.timeout,
            headers=self.headers_factory() if self.headers_factory else None)
        response.raise_for_status()
        self.last_track = response.json()


check("the OFREP provider's track() is the SDK's no-op", OFREPProvider.track is AbstractProvider.track, True)
tracker = TrackingOFREPProvider(base, headers_factory=lambda: {"Authorization": f"Bearer {write_token}"})
api.set_provider(tracker, domain="tracker")
tracking = api.get_client(domain="tracker")
buyer = EvaluationContext(targeting_key="bob", attributes={"plan": "free"})
check("tracked before", tracking.get_boolean_details("tracked-flag", False, buyer).value, False)
tracking.track("checkout-completed", buyer, TrackingEventDetails(value=42.5).add("currency", "EUR"))
check("track answered a seq", isinstance(getattr(tracker, "last_track", {}).get("seq"), int), True)
check("tracked after", tracking.get_boolean_details("tracked-flag", False, buyer).value, True)
# Bulk refetch sees it too (what an OFREP client polling or listening to refetchEvaluation does next).
bulk = tracker.session.post(urljoin(tracker._get_ofrep_api_url(), "evaluate/flags"), json={"context": {"targetingKey": "bob"}},
                            headers={"Authorization": f"Bearer {write_token}"}, timeout=5).json()
check("bulk after track", next(f for f in bulk["flags"] if f["key"] == "tracked-flag").get("value"), True)
# Tracking is a write: a token with the evaluate scope only is refused.
reader = TrackingOFREPProvider(base, headers_factory=lambda: {"Authorization": f"Bearer {token}"})
try:
    reader.track("checkout-completed", EvaluationContext(targeting_key="carol"))
    check("evaluate-only token refused", "accepted", 403)
except Exception as error:
    check("evaluate-only token refused", getattr(getattr(error, "response", None), "status_code", None), 403)

print(f"openfeature: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
