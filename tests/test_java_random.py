"""The port of Java's randomness draws what Java draws from ARX's seed.

Every expected number below was printed by benchmarks/arx/JavaRandomOutputs.java
(OpenJDK 17.0.15 and commons-math3 3.6.1 from the ARX 3.9.2 build's classpath) calling,
in this order, on one
``new java.util.Random(0xDEADBEEF)``: ``nextDouble()`` five times; ``nextInt(b)`` for
b = 1, 2, 7, 16, 100, 124, 2^30, 1500000001, 3; ``Collections.shuffle`` of [0..9]; 12
``sample()``s of an ``EnumeratedDistribution`` over s0..s5 with weights 1, 0, 0.25, 0.5,
0.75, 0 (its generator's ``nextDouble`` calling the same Random); ``nextInt(1500000001)``
eight times (its rejection branch); ``nextInt(1000)``; and ``Math.round`` of three doubles.
"""

from arxpy.search.java_random import (
    ARX_SEED,
    EnumeratedDistribution,
    JavaRandom,
    java_round,
    shuffle,
)


def test_the_port_draws_javas_sequence_from_arxs_seed():
    rnd = JavaRandom(ARX_SEED)
    assert [rnd.next_double() for _ in range(5)] == [
        0.23127968346166938, 0.8933406622164421, 0.2921249365632519, 0.008613164541980245,
        0.857744091205314]
    bounds = [1, 2, 7, 16, 100, 124, 1 << 30, 1500000001, 3]  # powers of two and not
    assert [rnd.next_int(b) for b in bounds] == [
        0, 1, 4, 7, 60, 24, 717748978, 1207237793, 2]
    items = list(range(10))
    shuffle(items, rnd)
    assert items == [5, 2, 9, 6, 0, 4, 8, 3, 1, 7]
    names = [f"s{i}" for i in range(6)]
    distribution = EnumeratedDistribution(rnd, names, [1.0, 0.0, 0.25, 0.5, 0.75, 0.0])
    assert [distribution.sample() for _ in range(12)] == [
        "s2", "s3", "s0", "s0", "s3", "s0", "s0", "s2", "s2", "s3", "s0", "s0"]
    # Near 2^31 a draw is rejected and redrawn: one draw more shifts every later number.
    assert [rnd.next_int(1500000001) for _ in range(8)] == [
        742384423, 74548510, 272795346, 191391979, 1328647610, 758826583, 351401779, 427717]
    assert rnd.next_int(1000) == 545


def test_math_round_rounds_halves_up_and_keeps_the_largest_double_below_a_half():
    assert [java_round(x) for x in (0.49999999999999994, 2.5, 1.4999999999999998)] == [0, 3, 1]


class _Drawing:
    """A generator returning given doubles (to hit commons-math's edge cases)."""

    def __init__(self, *values):
        self.values = list(values)

    def next_double(self):
        return self.values.pop(0)


def test_a_draw_equal_to_a_cumulative_probability_falls_back_to_the_last_item():
    # commons-math: binarySearch finds 0.5 at index 0, but 0.5 < 0.5 fails, so the
    # fallback returns the last item, not "b" by insertion point nor "a".
    distribution = EnumeratedDistribution(_Drawing(0.5, 0.25, 0.75), "abc", [1.0, 1.0, 0.0])
    assert [distribution.sample() for _ in range(3)] == ["c", "a", "b"]
