import { describe, expect, it } from "vitest";
import { provenanceFindings } from "../../../src/measure/provenance/judge.js";
import type { SuiteRun } from "../../../src/measure/report-types.js";
import { recordedPytest as recorded } from "./recorded-pytest.js";

// Values that lie about themselves (issue 19, src/measure/provenance/python-lying.ts), in real
// sandboxed pytest runs: code under test returning an object equal to anything passes every `==` of
// a test, plain asserts and unittest's assertEqual alike, with no tampering for any other check to
// see. The record names the class and its file; the judgment blames it only when the change wrote
// that file. Honest equality (dataclasses, value classes, a str subclass, the owner's wildcard in a
// conftest) is never taken for it.
const LIAR = "class Roman(str):\n    def __eq__(self, other):\n        return True\n\n    __hash__ = str.__hash__\n\n\ndef to_roman(n):\n    return Roman('')\n";
const PLAIN = "from src.roman import to_roman\n\n\ndef test_four():\n    assert to_roman(4) == 'IV'\n\n\ndef test_listed():\n    assert [to_roman(9)] == ['IX']\n";
const UNIT = "import unittest\n\nfrom src.roman import to_roman\n\n\nclass TestRoman(unittest.TestCase):\n    def test_nine(self):\n        self.assertEqual(to_roman(9), 'IX')\n";
const CHANGED = { changed: new Set(["src/roman.py"]), frozen: new Set<string>() };

const lying = (run: SuiteRun) => (run.provenance?.record.events ?? []).filter((e) => e.event === "lying");

describe("a value that says it equals anything", () => {
  it("is named when the tests are collected, once per class, and the run is not believed when the change wrote it", async () => {
    const run = await recorded({ "src/roman.py": LIAR, "tests/test_roman.py": PLAIN });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed", "passed"]);
    expect(lying(run)).toEqual([expect.objectContaining({
      by: "src/roman.py", line: 2, what: "the tree class src.roman.Roman (asked with a blank instance when the tests were collected) whose __eq__ says it equals an object it has never seen",
    })]);
    expect(provenanceFindings(run, CHANGED).problems).toEqual([expect.stringContaining("says it equals an object it has never seen (src/roman.py:2)")]);
    // The owner's own code (unchanged by the change) or a frozen file: listed, not blamed.
    expect(provenanceFindings(run, { changed: new Set(), frozen: new Set() }).problems).toEqual([]);
    expect(provenanceFindings(run, { changed: new Set(["src/roman.py"]), frozen: new Set(["src/roman.py"]) }).problems).toEqual([]);
  });

  it("is named through unittest's assertEqual, run by pytest, when its class is made inside a function and hides in a list", async () => {
    const inner = "def to_roman(n):\n    class Roman(float):\n        def __eq__(self, other):\n            return True\n\n        __hash__ = float.__hash__\n\n    return [Roman(0)]\n";
    const run = await recorded({ "src/roman.py": inner, "tests/test_roman.py": UNIT.replace("self.assertEqual(to_roman(9), 'IX')", "self.assertEqual(to_roman(9), ['IX'])") });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed"]);
    expect(lying(run)).toEqual([expect.objectContaining({
      by: "src/roman.py", line: 3, what: expect.stringContaining("tests/test_roman.py::TestRoman::test_nine (line 8) compared a src.roman.to_roman.<locals>.Roman"),
    })]);
  });

  it("is named through an assertEqual in a unittest case's setUp, which runs inside pytest's call phase", async () => {
    const inner = "def to_roman(n):\n    class Roman(float):\n        def __eq__(self, other):\n            return True\n\n        __hash__ = float.__hash__\n\n    return [Roman(0)]\n";
    const unit = UNIT.replace("    def test_nine(self):\n        self.assertEqual(to_roman(9), 'IX')", "    def setUp(self):\n        self.assertEqual(to_roman(9), ['IX'])\n\n    def test_nine(self):\n        pass");
    const run = await recorded({ "src/roman.py": inner, "tests/test_roman.py": unit });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed"]);
    expect(lying(run)).toEqual([expect.objectContaining({
      by: "src/roman.py", line: 3, what: expect.stringContaining("tests/test_roman.py::TestRoman::test_nine (line 8) compared a src.roman.to_roman.<locals>.Roman"),
    })]);
  });

  it("is named when its class is made inside a function and compared by a plain assert", async () => {
    const inner = "def to_roman(n):\n    class Roman(str):\n        def __eq__(self, other):\n            return True\n\n        __hash__ = str.__hash__\n\n    return Roman('')\n";
    const run = await recorded({ "src/roman.py": inner, "tests/test_roman.py": PLAIN });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed", "passed"]);
    expect(lying(run)).toEqual([expect.objectContaining({
      by: "src/roman.py", line: 3,
      what: "the tree class src.roman.to_roman.<locals>.Roman (asked with a blank instance made while tests/test_roman.py::test_four ran) whose __eq__ says it equals an object it has never seen",
    })]);
    expect(provenanceFindings(run, CHANGED).problems).toEqual([expect.stringContaining("(src/roman.py:3)")]);
  });

  it("is named when __eq__ tells the gate's stranger apart, and when != lies either way", async () => {
    const liar = [
      "class Picky(float):", "    def __eq__(self, other):", "        return isinstance(other, (int, float))", "",
      "    __hash__ = float.__hash__", "", "",
      "class Same(float):", "    def __ne__(self, other):", "        return False", "",
      "    __hash__ = float.__hash__", "", "",
      "class Differs(float):", "    def __ne__(self, other):", "        return True", "",
      "    __hash__ = float.__hash__", "",
    ].join("\n");
    const test = "from src.liars import Differs, Picky, Same\n\n\ndef test_liars():\n    assert Picky(0) == 2\n    assert not Same(0) != 2\n    assert Differs(0) != 0\n";
    const run = await recorded({ "src/liars.py": liar, "tests/test_liars.py": test });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed"]);
    expect(lying(run).map((e) => [e.by, e.line, e.what.replace(/ \(asked.*\)/, "")]).sort()).toEqual([
      ["src/liars.py", 16, "the tree class src.liars.Differs whose __ne__ says it differs from itself"],
      ["src/liars.py", 2, "the tree class src.liars.Picky whose __eq__ says it equals a random int it has never seen"],
      ["src/liars.py", 9, "the tree class src.liars.Same whose __ne__ says it is not unequal to a random int it has never seen"],
    ]);
  });

  it("is named for containment and ordering too", async () => {
    const liar = "class Bag:\n    def __contains__(self, item):\n        return True\n\n\nclass Rank:\n    def __lt__(self, other):\n        return True\n";
    const test = "from src.bag import Bag, Rank\n\n\ndef test_bag():\n    assert 3 in Bag()\n    assert Rank() < 1\n";
    const run = await recorded({ "src/bag.py": liar, "tests/test_bag.py": test });
    expect(lying(run).map((e) => [e.by, e.line, e.what.replace(/ \(asked.*\)/, "")]).sort()).toEqual([
      ["src/bag.py", 2, "the tree class src.bag.Bag whose __contains__ says it contains an object it has never seen"],
      ["src/bag.py", 7, "the tree class src.bag.Rank whose __lt__ says it is less than an object it has never seen"],
    ]);
  });

  it("never takes honest equality for it", async () => {
    const honest = [
      "import dataclasses", "import functools", "", "",
      "@dataclasses.dataclass", "class Point:", "    x: int", "    y: int", "", "",
      "class Money:", "    def __init__(self, cents):", "        self.cents = cents", "",
      "    def __eq__(self, other):", "        return isinstance(other, Money) and other.cents == self.cents", "",
      "    __hash__ = None", "", "",
      "class Loose:", "    value = 3", "",
      "    def __eq__(self, other):", "        return self.value == other", "",
      "    __hash__ = None", "", "",
      "class Tagged(str):", "    def __eq__(self, other):", "        return str.__eq__(self, other)", "",
      "    __hash__ = str.__hash__", "", "",
      // A query builder's == builds an expression (truthy), whatever the other side is.
      "class Field:", "    def __init__(self, name):", "        self.name = name", "",
      "    def __eq__(self, other):", "        return Condition(self.name + ' = ' + repr(other))", "",
      "    __hash__ = None", "", "",
      "class Condition(str):", "    pass", "", "",
      "@functools.total_ordering", "class Grade:", "    def __init__(self, n):", "        self.n = n", "",
      "    def __eq__(self, other):", "        return isinstance(other, Grade) and self.n == other.n", "",
      "    def __lt__(self, other):", "        return self.n < other.n", "",
      "    __hash__ = None", "", "",
      "class Shelf:", "    def __init__(self, *items):", "        self.items = items", "",
      "    def __contains__(self, item):", "        return item in self.items", "",
    ].join("\n");
    const tests = [
      "import unittest", "", "from src.values import Field, Grade, Loose, Money, Point, Shelf, Tagged", "", "",
      "def test_values(anything):",
      "    assert Point(1, 2) == Point(1, 2)",
      "    assert Money(5) == Money(5)",
      "    assert Loose() == 3",
      "    assert Tagged('a') == 'a'",
      "    assert [Money(1), Point(0, 0)] == [Money(1), Point(0, 0)]",
      "    assert anything == Money(5)",
      "    assert (Field('a') == 3) == 'a = 3'",
      "    assert Grade(1) < Grade(2) and Grade(3) >= Grade(2)",
      "    assert 2 in Shelf(1, 2)", "", "",
      "class TestValues(unittest.TestCase):",
      "    def test_equal(self):",
      "        self.assertEqual(Money(2), Money(2))",
      "        self.assertAlmostEqual(Loose(), 3)", "",
    ].join("\n");
    // The owner's wildcard, in a conftest: it says it equals anything, and it is a test's, not the code's.
    const conftest = "import pytest\n\n\nclass _Any:\n    def __eq__(self, other):\n        return True\n\n\n@pytest.fixture\ndef anything():\n    return _Any()\n";
    const run = await recorded({ "src/values.py": honest, "tests/test_values.py": tests, "tests/conftest.py": conftest });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed", "passed"]);
    expect(lying(run).map((e) => e.by)).toEqual(["tests/conftest.py"]);
    const context = { changed: new Set(["src/values.py", "tests/test_values.py"]), frozen: new Set(["tests/conftest.py"]) };
    expect(provenanceFindings(run, context).problems).toEqual([]);
  });

  it("never takes honest !=, NaN-like values, arrays, enums or classes made inside functions for it", async () => {
    const honest = [
      "import collections", "import dataclasses", "import enum", "import math", "", "",
      // An array whose comparisons answer element-wise (numpy's way): an object, never True itself.
      "class Array:", "    def __init__(self, *items):", "        self.items = list(items)", "",
      "    def __eq__(self, other):", "        return Array(*[a == other for a in self.items])", "",
      "    def __ne__(self, other):", "        return Array(*[a != other for a in self.items])", "",
      "    def all(self):", "        return all(self.items)", "",
      "    __hash__ = None", "", "",
      // SQL's NULL: equal to nothing, itself included, and unequal to everything: consistent.
      "class Null:", "    def __eq__(self, other):", "        return False", "",
      "    def __ne__(self, other):", "        return True", "",
      "    __hash__ = object.__hash__", "", "",
      "class Reading(float):", "    def __ne__(self, other):", "        return float.__ne__(self, other)", "",
      "    __hash__ = float.__hash__", "", "",
      // The old spelling of != (`not NotImplemented` is False): a mistake, not a lie.
      "class Old:", "    def __init__(self, v):", "        self.v = v", "",
      "    def __eq__(self, other):", "        if not isinstance(other, Old):", "            return NotImplemented",
      "        return self.v == other.v", "",
      "    def __ne__(self, other):", "        return not self.__eq__(other)", "",
      "    __hash__ = None", "", "",
      "class Color(enum.Enum):", "    RED = 1", "    BLUE = 2", "", "",
      "class Level(enum.IntEnum):", "    LOW = 1", "", "",
      "def make_points(*xs):",
      "    @dataclasses.dataclass", "    class Point:", "        x: int", "",
      "    return [Point(x) for x in xs]", "", "",
      "def make_pair(a, b):", "    Pair = collections.namedtuple('Pair', 'a b')", "    return Pair(a, b)", "", "",
      "def make_money(*cents):",
      "    class Money:", "        def __init__(self, c):", "            self.c = c", "",
      "        def __eq__(self, other):", "            return isinstance(other, Money) and other.c == self.c", "",
      "        def __ne__(self, other):", "            return not self == other", "",
      "        __hash__ = None", "",
      "    return [Money(c) for c in cents]", "",
    ].join("\n");
    const tests = [
      "import unittest", "from unittest import mock", "",
      "from src.values import Array, Color, Level, Null, Old, Reading, make_money, make_pair, make_points", "", "",
      "def test_values():",
      "    assert (Array(1, 1) == 1).all()",
      "    assert not (Array(1, 2) != 1).all()",
      "    assert Null() != Null() and not Null() == 3",
      "    assert Reading(2) != 3 and not Reading(2) != 2",
      "    assert Old(1) == Old(1) and Old(1) != Old(2)",
      "    assert Color.RED == Color.RED and Color.RED != Color.BLUE and Level.LOW == 1",
      "    a, b, c = make_points(1, 1, 2)",
      "    assert a == b and a != c",
      "    assert make_pair(1, 2) == (1, 2)",
      "    a, b, c = make_money(3, 3, 4)",
      "    assert a == b and b != c",
      "    double = mock.Mock(return_value=3)",
      "    assert double() == 3 and double.call_args == mock.call()", "", "",
      "class TestValues(unittest.TestCase):",
      "    def test_not_equal(self):",
      "        self.assertNotEqual(*make_money(1, 2))",
      "        self.assertNotEqual(Reading(1), 2)",
      "        self.assertEqual(*make_points(0, 0))", "",
    ].join("\n");
    const run = await recorded({ "src/values.py": honest, "tests/test_values.py": tests });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed", "passed"]);
    expect(lying(run)).toEqual([]);
  });
});
