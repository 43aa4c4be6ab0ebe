"""html.values.non_finite_text: what counts as a NaN or infinity a reader would see."""

import pytest

from roofline_site.html.values import non_finite_text


@pytest.mark.parametrize("html", [
    "<pre><code>nan</code></pre>", "<p>ratio: inf</p>", "<p>-inf</p>", "<td>NaN</td>", "<p>Infinity tokens/s</p>",
])
def test_printed_non_finite_values_are_found(html):
    assert non_finite_text(html) is not None


@pytest.mark.parametrize("html", [
    '<code><span class="s2">"nan"</span></code>',       # a string literal in shown source
    "<code>float(&#39;inf&#39;)</code>",                 # the same, escaped
    "<p>infinite, nanoseconds, the inference</p>",      # words that contain the letters
    "<script>if (isNaN(x)) x = NaN;</script>",          # not shown to readers
    '<span data-rl-value="nan">1 FLOP/byte</span>',     # inside a tag
])
def test_words_literals_and_hidden_code_are_not(html):
    assert non_finite_text(html) is None
