"""Differential test: specd against an independent flagd evaluator, flag by flag.

A seeded generator writes random flagd flag files (every JSON Logic operator specd supports, flagd's fractional,
sem_ver, starts_with and ends_with, $evaluators with $ref) and random evaluation contexts full of awkward values
(NaN-making strings, huge numbers, null, empty strings, decomposed accents). Each file is served by a real specd
(`serve --rules FILE --port 0`) and every context is sent to OFREP bulk evaluation; the same file and context go to
`openfeature-flagd-core`, OpenFeature's Python implementation of flagd's evaluator (PyPI). Every (flag, context) pair
is one comparison of reason, variant, value and error code.

The oracle has deviations of its own from flagd (its JSON Logic library is not JavaScript). Each known one is
detected while the oracle evaluates — by wrapping the library's operators and coercions — and a comparison that
touched one is excluded, counted under its reason (`EXCLUSIONS`), never compared. Where the oracle and flagd's Go
daemon differ, flagd's docs and Go evaluator decide: those cases are exclusions too, each reason saying so.

Usage: diff_flagd.py SPECD_BINARY COMPARISONS SEED [--keep DIR]: runs until COMPARISONS pairs were compared (excluded
ones not counted), prints a summary and exits 1 on any disagreement.
"""

import json
import logging
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import importlib
from importlib import util as import_util

from json_logic import builtins as jl
from openfeature.contrib.tools.flagd.core import FlagdCore
from openfeature.evaluation_context import EvaluationContext
from openfeature.exception import GeneralError, ParseError

# Why a comparison is not compared: the oracle's own deviations from flagd, and where it differs from flagd's Go
# evaluator (which decides).
EXCLUSIONS = {
    "null-equality": "oracle: `null == 0` and `null == false` are true (Python coerces None to 0); in JavaScript and "
    "flagd null equals only null",
    "string-to-number": "oracle: Number(string) is Python's float(): '' and blanks are NaN (JavaScript: 0), '0x10' is "
    "NaN (16), '1_0' and 'infinity' are numbers (NaN)",
    "bool-strict-equality": "oracle: `===` is Python ==, so `true === 1` holds and arrays/objects compare by value "
    "(JavaScript: by type, and by reference)",
    "equals-array": "oracle: `1 == [true]` reads the array's one element as a number (true is 1); JavaScript "
    "compares Number(String([true])), NaN",
    "python-modulo": "oracle: `%` is Python's floored modulo; JavaScript's and Go's truncate (the sign of the dividend)",
    "minus-null": "oracle: `a - null` is `-a` (a missing second operand is read as unary minus); JavaScript gives a",
    "to-string": "oracle: String(x) prints booleans as 'True'/'False', floats with '%.15g' and null in arrays as "
    "'null'; JavaScript prints 'true', shortest round-trip digits and ''",
    "mixed-compare": "oracle: `<` of a string and null compares strings ('null'); JavaScript compares numbers (NaN)",
    "compare-arrays": "oracle: `<` of two arrays or objects compares them as numbers (NaN); JavaScript compares their "
    "strings ('' < '1,2')",
    "between-null": "oracle: a three-argument comparison whose third argument is null is read as the two-argument form; "
    "flagd's Go evaluator (and specd) test between",
    "nan-min-max": "oracle: min/max over NaN depends on argument order (Python min); Math.min/Math.max give NaN",
    "bool-min-max": "oracle: min/max return a boolean argument as it is (`min(false)` is false, naming variant "
    "'false'); Math.min gives 0, as flagd's Go evaluator does",
    "in-array-equality": "oracle: `in` an array uses Python == (true == 1, arrays by value); json-logic-js uses "
    "indexOf (===)",
    "var-into-string": "oracle: var indexes into strings and reads 'length' (JavaScript property access); flagd's Go "
    "evaluator does neither, and specd follows it",
    "semver-short-prerelease": "oracle: '1-beta' is padded to 1.0.0-beta; flagd's Go evaluator (golang.org/x/mod/semver) "
    "accepts short forms only bare, and specd follows it",
    "fractional-go": "oracle (1.0.0 fractional): a null bucketing value, a whole float weight (2.0), a null weight, a "
    "distribution of three elements or an array variant differ from flagd's Go evaluator, which decides",
    "result-number": "oracle: a float targeting result names the variant str(x) ('1.0'); flagd writes it as JSON ('1')",
    "result-nan": "targeting result NaN/Infinity: flagd's Go evaluator cannot write it as JSON (PARSE_ERROR); the "
    "oracle names variant 'nan' (GENERAL)",
    "substr-null-length": "oracle: substr with a null length reads it as absent (the rest of the string); "
    "json-logic-js and flagd's Go evaluator read it as 0 (the empty string)",
    "non-ascii-evaluator": "oracle: a $evaluators entry with a non-ASCII name or body cannot be loaded (its JSON-escaped "
    "text is not matched, or breaks the regular expression that replaces $ref); flags that use one are not compared",
    "oracle-exception": "oracle raised (ZeroDivisionError for `/` and `%` by zero, OverflowError for substr at "
    "Infinity, TypeError in mixed ==): flagd answers a number or a substring there",
}

# The module, not the function its package exports under the same name: its OPERATORS table is wrapped below.
oracle_targeting = importlib.import_module("openfeature.contrib.tools.flagd.core.targeting.targeting")

logging.disable(logging.CRITICAL)  # the oracle logs every rule it refuses, with a traceback

HITS = set()  # the deviations touched during the current oracle evaluation


def hit(reason):
    HITS.add(reason)


# ---------------------------------------------------------------------------------------------------------------
# JavaScript reference coercions, used only to detect where the oracle's differ.

JS_WHITESPACE = " \t\n\r\v\f\u00a0\ufeff\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
    "\u2028\u2029\u202f\u205f\u3000"
DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def js_number(text):
    s = text.strip(JS_WHITESPACE)
    if s == "":
        return 0.0
    if s in ("Infinity", "+Infinity"):
        return math.inf
    if s == "-Infinity":
        return -math.inf
    for prefix, base in (("0x", 16), ("0X", 16), ("0o", 8), ("0O", 8), ("0b", 2), ("0B", 2)):
        if s.startswith(prefix) and len(s) > 2:
            try:
                return float(int(s[2:], base)) if re.fullmatch(r"[0-9a-fA-F]+", s[2:]) else math.nan
            except ValueError:
                return math.nan
    return float(s) if DECIMAL.match(s) else math.nan


def same_number(a, b):
    return (isinstance(a, float) and math.isnan(a) and isinstance(b, float) and math.isnan(b)) or a == b


def js_number_string(x):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    r = repr(float(x))
    sign = "-" if x < 0 else ""
    r = r.lstrip("-")
    mant, _, exp = r.partition("e")
    exp = int(exp) if exp else 0
    whole, _, frac = mant.partition(".")
    digits = (whole + frac).lstrip("0")
    point = len(whole) + exp - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * (-point) + digits
    m = digits if k == 1 else digits[0] + "." + digits[1:]
    return sign + m + "e" + ("-" if point - 1 < 0 else "+") + str(abs(point - 1))


# ---------------------------------------------------------------------------------------------------------------
# Detectors: the oracle's operators and coercions, wrapped.

original_to_number = jl.to_number
original_to_string = jl.to_string


def to_number(a):
    result = original_to_number(a)
    if isinstance(a, str) and not same_number(float(result), js_number(a)):
        hit("string-to-number")
    return result


def to_string(value):
    if isinstance(value, bool):
        hit("to-string")
    elif isinstance(value, float) and original_to_string(value) != js_number_string(value):
        hit("to-string")
    elif isinstance(value, list) and any(v is None for v in value):
        hit("to-string")
    return original_to_string(value)


jl.to_number = to_number
jl.to_string = to_string


def wrap(name, check):
    inner = oracle_targeting.OPERATORS[name]

    def operator(data, *args):
        check(*args)
        return inner(data, *args)

    oracle_targeting.OPERATORS[name] = operator


def check_equals(a=None, b=None, *_):
    if (a is None) != (b is None):
        hit("null-equality")
    if isinstance(a, (list, dict)) and isinstance(b, (list, dict)):
        hit("bool-strict-equality")
    for array, other in ((a, b), (b, a)):
        if isinstance(array, list) and not isinstance(other, (str, list, dict)) and \
                any(item is None or isinstance(item, (bool, list, dict)) for item in array):
            hit("equals-array")


def check_strict(a=None, b=None, *_):
    if isinstance(a, bool) != isinstance(b, bool) and isinstance(a, (int, float)) and isinstance(b, (int, float)):
        hit("bool-strict-equality")
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        hit("bool-strict-equality")


def check_compare(*args):
    if len(args) == 3 and args[2] is None:
        hit("between-null")
    for a, b in zip(args, args[1:3]):
        if (isinstance(a, str) and b is None) or (isinstance(b, str) and a is None):
            hit("mixed-compare")
        if isinstance(a, (list, dict)) and isinstance(b, (list, dict)):
            hit("compare-arrays")


def check_modulo(a=None, b=None, *_):
    x, y = original_to_number(a), original_to_number(b)
    try:
        if not same_number(float(x % y), math.fmod(x, y)):
            hit("python-modulo")
    except (ZeroDivisionError, ValueError):
        pass


def check_minus(*args):
    if len(args) >= 2 and args[1] is None:
        hit("minus-null")


def check_min_max(*args):
    if any(isinstance(n, bool) for n in args):
        hit("bool-min-max")
    if any(isinstance(n, float) and math.isnan(n) for n in map(original_to_number, args)):
        hit("nan-min-max")


def check_in(needle=None, haystack=None, *_):
    if isinstance(haystack, list):
        if isinstance(needle, (list, dict)):
            hit("in-array-equality")
        for item in haystack:
            if isinstance(item, (int, float)) and isinstance(needle, (int, float)) and \
                    isinstance(item, bool) != isinstance(needle, bool):
                hit("in-array-equality")


def check_var(key=None, *_):
    if not isinstance(key, str) or key == "":
        return
    data = CURRENT_DATA[-1]
    for prop in key.split("."):
        if isinstance(data, str) or (isinstance(data, list) and prop == "length"):
            hit("var-into-string")
            return
        if isinstance(data, dict):
            data = data.get(prop)
        elif isinstance(data, list) and prop.isdigit() and int(prop) < len(data) and prop == str(int(prop)):
            data = data[int(prop)]
        else:
            return


def check_substr(*args):
    if len(args) >= 3 and args[2] is None:
        hit("substr-null-length")


def check_sem_ver(*args):
    for version in (args[0], args[2]) if len(args) == 3 else ():
        text = str(version)
        core = text.lstrip("vV").split("-")[0].split("+")[0]
        if core.count(".") < 2 and ("-" in text or "+" in text):
            hit("semver-short-prerelease")


# The var operator needs the data it reads; the oracle passes it as the first argument.
CURRENT_DATA = [None]
var_inner = oracle_targeting.OPERATORS["var"]


def var_operator(data, *args):
    CURRENT_DATA.append(data)
    try:
        check_var(*args)
    finally:
        CURRENT_DATA.pop()
    return var_inner(data, *args)


oracle_targeting.OPERATORS["var"] = var_operator
for name in ("==", "!="):
    wrap(name, check_equals)
for name in ("===", "!=="):
    wrap(name, check_strict)
for name in ("<", "<=", ">", ">="):
    wrap(name, check_compare)
wrap("%", check_modulo)
wrap("-", check_minus)
wrap("min", check_min_max)
wrap("max", check_min_max)
wrap("in", check_in)
wrap("sem_ver", check_sem_ver)
wrap("substr", check_substr)


def load_v2_fractional():
    """openfeature-flagd-core 2.0.0 hashes CBOR (the testbed's @fractional-v3); flagd's Go daemon and specd hash the
    UTF-8 string (@fractional-v2), as 1.0.0 does: its fractional is loaded from the 1.0.0 wheel the script keeps."""
    path = os.environ["FLAGD_CORE_V1_OPS"]
    spec = import_util.spec_from_file_location("flagd_core_v1_custom_ops", path)
    module = import_util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.fractional


fractional_v2 = load_v2_fractional()


def fractional(data, *args):
    if args and args[0] is None:
        hit("fractional-go")
    for arg in args:
        if isinstance(arg, list) and arg:
            if len(arg) > 2 or isinstance(arg[0], (list, dict)):
                hit("fractional-go")
            if len(arg) == 2 and (arg[1] is None or (isinstance(arg[1], float) and arg[1].is_integer())):
                hit("fractional-go")
    if args and args[0] == "":
        hit("fractional-go")
    return fractional_v2(data, *args)


oracle_targeting.OPERATORS["fractional"] = fractional


# ---------------------------------------------------------------------------------------------------------------
# The generator.

STRINGS = ["", "abc", "a", "b", "on", "off", "1", " 12 ", "0", "-1", "2.5", "1e3", "Infinity", "-Infinity", "inf",
           "nan", "0x10", "1_0", "José", "Jose\u0301", "ABC", "user@example.com", "beta", "true", "null", "x y"]
NUMBERS = [0, 1, -1, 2, 3, 5, 10, 100, 2.5, -2.5, 0.1, 1e300, -1e300, 1e21, 1e-7, 0.5, 7]
VERSIONS = ["1.2.3", "1.2.3-beta", "1.2.3-beta.1", "1.2.3-alpha", "2.0.0", "1.2", "1", "v1.2.3", "V2.0.0",
            "01.2.3", "1.2.3-01", "1.2.3+build", "1.2.3-0a", "1.10.0", "1.9.9", "1.2.3-rc.10", "1.2.3-rc.9",
            "1-beta", "x.y.z", "", "1.2.3.4", "1.2.3-"]
ATTRIBUTES = ["n", "m", "s", "t", "b", "v", "w", "list", "obj", "email", "nul", "x"]
VARIANT_NAMES = ["on", "off", "a", "b", "1", "2", "true", "false", "0", "abc"]


class Generator:
    def __init__(self, seed):
        self.random = random.Random(seed)

    def pick(self, items):
        return self.random.choice(items)

    def scalar(self):
        roll = self.random.random()
        if roll < 0.35:
            return self.pick(STRINGS)
        if roll < 0.7:
            return self.pick(NUMBERS)
        if roll < 0.85:
            return self.pick([True, False])
        return None

    def value(self, depth=0):
        roll = self.random.random()
        if depth < 2 and roll < 0.12:
            return [self.value(depth + 1) for _ in range(self.random.randint(0, 3))]
        if depth < 2 and roll < 0.18:
            return {self.pick(["a", "b", "c"]): self.value(depth + 1) for _ in range(self.random.randint(1, 2))}
        return self.scalar()

    def context(self):
        # Half the contexts are well typed, as most callers' are; the other half put any value anywhere.
        if self.random.random() < 0.5:
            return self.typed_context()
        ctx = {}
        for name in ATTRIBUTES:
            if self.random.random() < 0.25:
                continue
            if name in ("v", "w"):
                ctx[name] = self.pick(VERSIONS) if self.random.random() < 0.85 else self.scalar()
            elif name == "email":
                ctx[name] = self.pick(["a@example.com", "b@test.org", "José@example.com", "", "x"])
            elif name == "nul":
                ctx[name] = None
            elif name == "list":
                ctx[name] = [self.scalar() for _ in range(self.random.randint(0, 4))]
            elif name == "obj":
                ctx[name] = {"a": self.scalar(), "b": {"c": self.scalar()}, "d": [self.scalar(), self.scalar()]}
            else:
                ctx[name] = self.value()
        roll = self.random.random()
        key = None if roll < 0.15 else ("" if roll < 0.2 else self.pick(["u1", "u2", "user-3", "Jos\u00e9", "k" * 3]) +
                                        str(self.random.randint(0, 999)))
        return key, ctx

    def typed_context(self):
        plain = ["abc", "a", "b", "on", "beta", "José", "Jose\u0301", "ABC", "x y", "user@example.com", "1", "10"]
        ctx = {"n": self.pick([0, 1, 2, 3, 5, 7, 10, 100, 2.5, -1]), "m": self.pick([1, 2, 3, 0.5, -2.5, 42]),
               "s": self.pick(plain), "t": self.pick(plain), "b": self.pick([True, False]),
               "v": self.pick(VERSIONS[:16]), "w": self.pick(VERSIONS[:16]),
               "list": self.random.sample([1, 2, 3, 5, 10, "a", "b", "beta"], self.random.randint(0, 4)),
               "obj": {"a": self.pick(plain), "b": {"c": self.pick([1, 2, 3])}, "d": [self.pick(plain), 2]},
               "email": self.pick(["a@example.com", "b@test.org", "José@example.com", "x@example.com"])}
        for name in list(ctx):
            if self.random.random() < 0.15:
                del ctx[name]
        key = self.pick(["u1", "u2", "user-3", "Jos\u00e9", "kkk"]) + str(self.random.randint(0, 999))
        return (None if self.random.random() < 0.1 else key), ctx

    def var(self):
        roll = self.random.random()
        name = self.pick(ATTRIBUTES + ["obj.a", "obj.b.c", "obj.d.1", "list.0", "list.2", "missing",
                                        "targetingKey", "n.x", "s.0"])
        if roll < 0.25:
            return {"var": [name, self.scalar()]}
        return {"var": name}

    def expression(self, depth):
        if depth <= 0 or self.random.random() < 0.25:
            return self.var() if self.random.random() < 0.6 else self.scalar()
        op = self.pick(OPERATORS)
        return op(self, depth - 1)

    def targeting(self, evaluators):
        e = self.expression
        names = VARIANT_NAMES + [None]
        shape = self.random.random()
        if shape < 0.55:
            branches = []
            for _ in range(self.random.randint(1, 3)):
                branches += [e(3), self.pick(names)]
            if self.random.random() < 0.7:
                branches.append(self.pick(names) if self.random.random() < 0.8 else e(2))
            return {"if": branches}
        if shape < 0.7:
            return self.fractional(2)
        if shape < 0.8 and evaluators:
            return {"if": [{"$ref": self.pick(evaluators)}, self.pick(names), {"$ref": self.pick(evaluators)}]}
        if shape < 0.85:
            return {"if": [e(2), self.pick(names), {"$ref": "nowhere"}]}
        top = e(3)
        return top if isinstance(top, dict) and len(top) == 1 else {"if": [top, "on", "off"]}

    def fractional(self, depth):
        distributions = []
        for _ in range(self.random.randint(1, 4)):
            variant = self.pick(VARIANT_NAMES) if self.random.random() < 0.9 else self.scalar()
            roll = self.random.random()
            if roll < 0.8:
                distributions.append([variant, self.random.randint(-5, 100)])
            elif roll < 0.9:
                distributions.append([variant])
            else:
                distributions.append([variant, self.pick([2.5, "10", True, None, 2.0, 1e300, 2147483647, {"var": "n"}])])
        roll = self.random.random()
        if roll < 0.4:
            return {"fractional": distributions}
        bucket = self.pick([{"var": "email"}, {"var": "s"}, {"cat": [{"var": "email"}, "-salt"]}, {"var": "list"},
                            {"var": "missing"}, "fixed", self.expression(depth)])
        return {"fractional": [bucket] + distributions}

    def flag_file(self, flags):
        evaluators = {}
        for index in range(self.random.randint(0, 3)):
            name = self.pick(["isPro", "beta-users", "rule_" + str(index), "caf\u00e9"])
            evaluators[name] = self.expression(2) if self.random.random() < 0.7 else {"in": [{"var": "s"}, "abcdef"]}
            if not isinstance(evaluators[name], dict) or len(evaluators[name]) != 1:
                evaluators[name] = {"==": [evaluators[name], {"var": "s"}]}
        definitions = {}
        for index in range(flags):
            variants = {}
            kind = self.random.random()
            for name in self.random.sample(VARIANT_NAMES, self.random.randint(2, 6)):
                if kind < 0.3:
                    variants[name] = self.random.random() < 0.5
                elif kind < 0.6:
                    variants[name] = name.upper()
                elif kind < 0.85:
                    variants[name] = self.pick([0, 1, 2.5, -3, 100])
                else:
                    variants[name] = {"color": name, "size": self.random.randint(0, 9)}
            flag = {"state": "ENABLED" if self.random.random() < 0.93 else "DISABLED", "variants": variants,
                    "defaultVariant": self.pick(list(variants)) if self.random.random() < 0.9 else None,
                    "targeting": self.targeting(list(evaluators)) if self.random.random() < 0.95 else {}}
            definitions["f%d" % index] = flag
        return {"flags": definitions, "$evaluators": evaluators}


def op(name, arity):
    def make(gen, depth):
        low, high = arity
        return {name: [gen.expression(depth) for _ in range(gen.random.randint(low, high))]}
    return make


def op_iterate(name):
    def make(gen, depth):
        body = gen.pick([{">": [{"var": ""}, gen.pick(NUMBERS)]}, {"==": [{"var": ""}, gen.scalar()]},
                         {"var": ""}, {"*": [{"var": ""}, 2]}, {"in": [{"var": ""}, gen.pick(STRINGS)]}])
        return {name: [gen.pick([{"var": "list"}, [gen.scalar() for _ in range(3)], {"var": "obj.d"}, []]), body]}
    return make


def op_reduce(gen, depth):
    return {"reduce": [gen.pick([{"var": "list"}, [1, 2, 3], {"var": "obj.d"}]),
                       {gen.pick(["+", "*", "cat", "max"]): [{"var": "current"}, {"var": "accumulator"}]},
                       gen.pick([0, 1, "", None])]}


def op_sem_ver(gen, depth):
    left = gen.pick([{"var": "v"}, {"var": "w"}, gen.pick(VERSIONS)])
    return {"sem_ver": [left, gen.pick(["=", "!=", "<", "<=", ">", ">=", "^", "~", "=="]),
                        gen.pick(VERSIONS + [{"var": "w"}])]}


def op_string_match(name):
    def make(gen, depth):
        return {name: [gen.pick([{"var": "email"}, {"var": "s"}, {"var": "t"}, gen.pick(STRINGS)]),
                       gen.pick(["a", "José", "Jose\u0301", "@example.com", "", "abc", {"var": "t"}, 1])]}
    return make


def op_missing(gen, depth):
    keys = gen.random.sample(ATTRIBUTES + ["obj.a", "missing"], 3)
    if gen.random.random() < 0.5:
        return {"missing": keys}
    return {"missing_some": [gen.random.randint(0, 3), keys]}


OPERATORS = [
    op("==", (2, 2)), op("!=", (2, 2)), op("===", (2, 2)), op("!==", (2, 2)),
    op("<", (2, 3)), op("<=", (2, 3)), op(">", (2, 3)), op(">=", (2, 3)),
    op("!", (1, 1)), op("!!", (1, 1)), op("and", (1, 3)), op("or", (1, 3)), op("if", (1, 5)), op("?:", (3, 3)),
    op("in", (2, 2)), op("cat", (1, 3)), op("substr", (2, 3)),
    op("+", (1, 3)), op("-", (1, 2)), op("*", (1, 3)), op("/", (2, 2)), op("%", (2, 2)),
    op("min", (1, 3)), op("max", (1, 3)), op("merge", (1, 3)),
    op_iterate("map"), op_iterate("filter"), op_iterate("all"), op_iterate("none"), op_iterate("some"), op_reduce,
    op_missing, op_sem_ver, op_string_match("starts_with"), op_string_match("ends_with"),
    lambda gen, depth: gen.fractional(depth),
]


# ---------------------------------------------------------------------------------------------------------------
# Running both sides.

def oracle_answer(core, key, targeting_key, context):
    HITS.clear()
    ctx = EvaluationContext(targeting_key=targeting_key, attributes=context)
    try:
        result = core._resolve(key, None, ctx, None)
    except ParseError:
        return {"errorCode": "PARSE_ERROR"}
    except GeneralError:
        return {"errorCode": "GENERAL"}
    except Exception as error:  # noqa: BLE001 - any other exception is the oracle failing
        hit("oracle-exception")
        return {"errorCode": "ORACLE:" + type(error).__name__}
    reason = result.reason.value if hasattr(result.reason, "value") else str(result.reason)
    answer = {"reason": reason}
    if reason != "DISABLED" and result.variant is not None:
        answer["variant"] = result.variant
        answer["value"] = result.value
    return answer


def result_checks(core, key, targeting_key, context):
    """Deviations visible only in the targeting result: it is evaluated once more, without the flag around it."""
    flag = core._flag_store.get_flag(key)
    if not flag.targeting:
        return
    data = dict(context)
    data["targetingKey"] = targeting_key
    data["$flagd"] = {"flagKey": "", "timestamp": 0}
    try:
        result = oracle_targeting.jsonLogic(flag.targeting, data, oracle_targeting.OPERATORS)
    except Exception:  # noqa: BLE001 - the flag evaluation above reports it
        return
    if isinstance(result, float) and not isinstance(result, bool):
        if math.isnan(result) or math.isinf(result):
            hit("result-nan")
        elif str(result) != js_number_string(result):
            hit("result-number")


def specd_answer(item):
    if "errorCode" in item:
        return {"errorCode": item["errorCode"]}
    answer = {"reason": item["reason"]}
    if item["reason"] != "DISABLED" and "value" in item:
        answer["variant"] = item.get("variant")
        answer["value"] = item["value"]
    return answer


def json_equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return a == b


def start_specd(binary, rules, work):
    port_file = os.path.join(work, "port")
    if os.path.exists(port_file):
        os.remove(port_file)
    log = open(os.path.join(work, "specd.log"), "w")
    process = subprocess.Popen(
        [binary, "serve", "--port", "0", "--port-file", port_file, "--rules", rules, "--rules-format", "flagd",
         "--data-dir", os.path.join(work, "data"), "--fsync", "never"], stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(400):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return process, int(open(port_file).read().strip())
        if process.poll() is not None:
            break
        time.sleep(0.025)
    process.kill()
    sys.exit("specd did not start on %s:\n%s" % (rules, open(os.path.join(work, "specd.log")).read()))


def bulk(port, targeting_key, context):
    body = dict(context)
    if targeting_key is not None:
        body["targetingKey"] = targeting_key
    request = urllib.request.Request(
        "http://127.0.0.1:%d/ofrep/v1/evaluate/flags" % port, data=json.dumps({"context": body}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return {item["key"]: item for item in json.loads(response.read())["flags"]}


def main():
    binary, comparisons, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    generator = Generator(seed)
    flags_per_file, contexts_per_file = 50, 20
    compared = excluded = disagreements = 0
    by_reason = {}
    shown = 0
    work = tempfile.mkdtemp(prefix="diff-flagd-")
    started = time.time()
    files = 0
    while compared < comparisons:
        document = generator.flag_file(flags_per_file)
        rules = os.path.join(work, "flags.json")
        with open(rules, "w") as out:
            json.dump(document, out, ensure_ascii=False)
        non_ascii_refs = [name for name, rule in document["$evaluators"].items()
                          if not json.dumps({name: rule}, ensure_ascii=False).isascii()]
        oracle_document = json.loads(json.dumps(document))
        for name in non_ascii_refs:
            del oracle_document["$evaluators"][name]
        core = FlagdCore()
        core.set_flags(oracle_document)
        process, port = start_specd(binary, rules, work)
        files += 1
        try:
            for _ in range(contexts_per_file):
                targeting_key, context = generator.context()
                answers = bulk(port, targeting_key, context)
                for key, flag in document["flags"].items():
                    if compared >= comparisons:
                        break
                    expected = oracle_answer(core, key, targeting_key, json.loads(json.dumps(context)))
                    result_checks(core, key, targeting_key, json.loads(json.dumps(context)))
                    if any('"$ref": %s' % json.dumps(name) in json.dumps(flag) for name in non_ascii_refs):
                        hit("non-ascii-evaluator")
                    if HITS:
                        excluded += 1
                        for reason in HITS:
                            by_reason[reason] = by_reason.get(reason, 0) + 1
                        continue
                    compared += 1
                    actual = specd_answer(answers[key])
                    same = actual.keys() == expected.keys() and all(json_equal(actual[k], expected[k]) for k in actual)
                    if not same:
                        disagreements += 1
                        if shown < 12:
                            shown += 1
                            print("DISAGREE seed=%d file=%d flag=%s\n  targeting: %s\n  targetingKey: %r context: %s\n"
                                  "  specd:  %s\n  oracle: %s" % (
                                      seed, files, key,
                                      json.dumps(core._flag_store.get_flag(key).targeting, ensure_ascii=False),
                                      targeting_key, json.dumps(context, ensure_ascii=False), actual, expected))
                            if keep:
                                with open(os.path.join(keep, "disagreement-%d.json" % shown), "w") as out:
                                    json.dump({"file": document, "flag": key, "targetingKey": targeting_key,
                                               "context": context}, out, ensure_ascii=False)
            if process.poll() is not None:
                sys.exit("specd exited (status %s) on seed %d file %d" % (process.returncode, seed, files))
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
            if process.returncode not in (0, -signal.SIGTERM):
                sys.exit("specd ended with status %s on seed %d file %d" % (process.returncode, seed, files))
    for reason in sorted(by_reason):
        print("  excluded %-24s %6d  %s" % (reason, by_reason[reason], EXCLUSIONS[reason]))
    print("diff-flagd: seed %d, %d flag files, %.1f s" % (seed, files, time.time() - started))
    print("diff-flagd: %d comparisons, %d disagreements (%d excluded)" % (compared, disagreements, excluded))
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
