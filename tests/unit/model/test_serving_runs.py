"""Published serving runs against the serving model: every one below its ceiling, the ceiling below
the compute roof of the run's FLOPs, one ceiling derived by hand, and the table's ratios and median
recomputed from the TOML.
"""

from __future__ import annotations

import html
import math
import re
import statistics
import tomllib

import pytest

from roofline import quantities as q
from roofline.errors import InputError
from roofline.model import serving_runs
from roofline.model.serving_runs import DOUBT_SHARE, above_ceiling, ceiling
from roofline.quantities.core import ClaimFailed, claim
from roofline.registry import measurements
from roofline.registry.measurements import get_serving
from tests.conftest import ROOT

DATA = ROOT / "src" / "roofline" / "data"
TEXT = (DATA / "measurements.toml").read_text()
RAW = tomllib.loads(TEXT)["serving"]
HW = {d["id"]: d for d in tomllib.loads((DATA / "hardware.toml").read_text())["device"]}
MODELS = {m["id"]: m for m in tomllib.loads((DATA / "models.toml").read_text())["model"]}


def _published_per_device(e: dict) -> float:
    """The run's output tokens/s per device, straight from the TOML."""
    if "output_tokens_per_s_per_device" in e:
        return e["output_tokens_per_s_per_device"]
    return e["output_tokens_per_s_total"] / e["devices"]


@pytest.mark.parametrize("entry", RAW, ids=lambda e: e["id"])
def test_every_published_run_is_below_its_ceiling(entry):
    c = ceiling(get_serving(entry["id"]))
    assert c.ceiling_tokens_per_s / entry["devices"] > _published_per_device(entry), (
        f"{entry['id']} exceeds its ceiling: investigate the record (per device or total? device count? format? "
        "speculative decoding?) before the ceiling")
    assert c.share < DOUBT_SHARE, f"{entry['id']} is within 1 % of its ceiling: doubt the ceiling"
    # The expected figure is the same point on a derated device: never above the ceiling.
    assert c.expected_tokens_per_s <= c.ceiling_tokens_per_s


def _matmul_flops_per_token(cfg: dict) -> float:
    """2 × the weights one token multiplies in the layers (attention projections and its experts'
    or the dense MLP), from the config fields alone; the head, attention scores and routers left
    out, so the compute roof below is generous."""
    h, nh, kv = cfg["hidden_size"], cfg["n_heads"], cfg["kv_heads"]
    hd = cfg.get("head_dim", h // nh)
    attention = 2 * h * nh * hd + 2 * h * kv * hd
    if cfg.get("n_experts", 1) > 1:
        mlp = cfg["experts_per_token"] * 3 * h * cfg["moe_ffn_size"]
    else:
        mlp = 3 * h * cfg["ffn_size"]
    return 2.0 * cfg["n_layers"] * (attention + mlp)


@pytest.mark.parametrize("entry", RAW, ids=lambda e: e["id"])
def test_ceiling_is_below_the_compute_roof_of_its_flops(entry):
    # Every request pushes I + O tokens through the layers' matmuls: at the dense peak of the
    # activation format on every device, output tokens/s ≤ devices × peak × O ÷ (FLOPs/token × (I + O)).
    # Llama 3.1 8B, H100, 128/128 by hand: 2 × 32 × (2·4096·4096 + 2·4096·1024 + 3·4096·14336)
    # = 13.96 GFLOP/token; 1978.9e12 × 128 ÷ (13.96e9 × 256) = 70,900 tokens/s.
    peak = HW[entry["device"]]["dense_peak_TFLOP_per_s"][entry["activation_format"]] * 1e12
    flops = _matmul_flops_per_token(MODELS[entry["model"]])
    roof = entry["devices"] * peak * entry["output_tokens"] / (flops * (entry["input_tokens"] + entry["output_tokens"]))
    assert ceiling(get_serving(entry["id"])).ceiling_tokens_per_s <= roof


def test_llama_8b_roof_by_hand():
    cfg = MODELS["llama-3.1-8b"]
    assert _matmul_flops_per_token(cfg) == 2 * 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
    assert 1978.9e12 * 128 / (_matmul_flops_per_token(cfg) * 256) == pytest.approx(70_900, rel=1e-3)


def test_one_ceiling_by_hand_llama_405b_one_request_on_eight_mi300x():
    # Oracle's batch of one: Llama 3.1 405B, FP8 weights and activations, FP8 KV assumed, TP8 (the best
    # 8-GPU layout), 128 in and 128 out. At one request the engine reads every weight once per token:
    #   layers' matmul weights 126 × (2·16384² + 2·16384·1024 + 3·16384·53248) = 401,646,551,040 at 1 byte,
    #   output head 128256 × 16384 = 2,101,346,304 at 2 bytes (kept 16-bit) = 4,202,692,608 bytes;
    #   ÷ 8 GPUs = 50,731,155,456 bytes per GPU ÷ 5.3 TB/s = 9.5719 ms.
    # TP8 adds two all-reduces per layer (252), the embedding's and the logits' all-gather: 254 collectives,
    #   each at the ceiling's latency, the MI300X's Infinity Fabric floor of 5 µs (hardware.toml): 1.27 ms.
    # Step = 10.842 ms, one token per step: 92.23 tokens/s (the KV reads, norms and the collectives'
    # bytes, left out here, take a little more).
    run = get_serving("oci-vllm-mi300x-llama-3.1-405b-batch-1")
    c = ceiling(run)
    assert c.point.layout_name == "TP8" and c.point.concurrency == 1
    hand_s = 50_731_155_456 / 5.3e12 + 254 * 5e-6
    assert c.ceiling_tokens_per_s == pytest.approx(1 / hand_s, rel=0.01)
    assert c.ceiling_tokens_per_s < 1 / hand_s  # what the hand count leaves out only adds time
    # Published 36 tokens/s ÷ 92.2 = 0.39.
    assert c.share == pytest.approx(36 / 92.23, rel=0.01)


def test_an_unstated_layout_takes_the_best_of_the_same_device_count():
    # Oracle's post names eight MI300X and vLLM but no split: every layout of eight devices is tried.
    run = get_serving("oci-vllm-mi300x-llama-3.1-405b-128-2048")
    c = ceiling(run)
    assert "layout" in run.assumed and set(c.layouts) >= {"TP8", "PP8"}
    from roofline.model import serving
    from roofline.model.parallel import Layout

    tp8 = serving.offline_max(run.model, run.device, Layout(tp=8), serving_runs.workload(run))
    assert c.ceiling_tokens_per_s >= tp8.output_tokens_per_s



def test_a_stated_tp8_moe_run_is_judged_on_tp8_alone():
    # TensorRT-LLM's table header says TP8 and prints no --ep; trtllm-bench's --ep defaults to none, and
    # TensorRT-LLM's Mapping then sets moe_tp_size = tp_size: every expert is split over the eight GPUs.
    # Qwen3-235B-A22B's config.json: moe_intermediate_size 1536, 64 query heads, 4 KV heads. One GPU's
    # share by hand: 1536 / 8 = 192 columns of every expert, 64 / 8 = 8 query heads, and 4 KV heads over
    # 8 GPUs leave each GPU one (two GPUs hold a copy of each), as TensorRT-LLM replicates them.
    from roofline.model import parallel
    from roofline.model.parallel import Layout

    run = get_serving("trtllm-1.0-h200-qwen3-235b-a22b-1000-1000")
    assert "layout" not in run.assumed
    c = ceiling(run)
    assert c.layouts == ("TP8",) and c.point.layout_name == "TP8" and c.engine_point.layout.name == "TP8"
    one = parallel.shard(run.model, Layout(tp=8))
    assert (one.moe_ffn_size, one.n_heads, one.kv_heads) == (192, 8, 1)

SPAN = re.compile(r'data-v="([^"]+)"')


def _table_rows():
    from roofline_site.numbers.tables import table

    every = str(table("measured-serving", "real-systems.md", [])).split('aria-label="Published serving runs against the serving ceiling"')[1]
    body = every.split("<tbody>")[1].split("</tbody>")[0]
    return [row for row in body.split("\n") if row.startswith("<tr>")]


def test_table_ratios_and_median_are_recomputed_from_the_toml():
    rows = _table_rows()
    assert len(rows) == len(RAW)
    shares = []
    for row, e in zip(rows, RAW):
        cells = row[len("<tr><td"):].split("<td")
        published, ceiling_cell, share_cell = (float(SPAN.search(cells[i]).group(1)) for i in (2, 3, 1))  # name, share, published, ceiling, ...
        assert published == _published_per_device(e), e["id"]
        expected_share = _published_per_device(e) / ceiling_cell
        assert share_cell == pytest.approx(expected_share, rel=1e-12), e["id"]
        shares.append(expected_share)
    # An odd count's median is the middle share; an even count's, the mean of the two middle ones.
    ordered, n = sorted(shares), len(shares)
    hand_median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    assert float(q.serving_runs_stat("median")) == pytest.approx(hand_median, rel=1e-12)
    assert float(q.serving_runs_stat("median")) == pytest.approx(statistics.median(shares), rel=1e-12)
    assert float(q.serving_runs_stat("max")) == pytest.approx(max(shares)) and max(shares) < 1


def test_the_tp2_row_per_gpu_and_its_share():
    # 6,378 tokens/s on two H100s = 3,189 per GPU; the table's share is 3,189 ÷ the ceiling per GPU.
    row = next(r for r, e in zip(_table_rows(), RAW) if e["id"] == "trtllm-1.0-h100-llama-3.3-70b-128-128")
    cells = row[len("<tr><td"):].split("<td")
    assert float(SPAN.search(cells[2]).group(1)) == 3189
    ceiling_per_gpu = float(SPAN.search(cells[3]).group(1))
    assert float(SPAN.search(cells[1]).group(1)) == pytest.approx(3189 / ceiling_per_gpu, rel=1e-12)
    assert html.unescape(cells[7]).split(">", 1)[1].startswith("fp8/fp8/fp8‡")


def test_a_run_above_its_ceiling_is_caught(tmp_path, monkeypatch):
    # Multiply one run by 100 (a per-GPU figure read as a total on 100 GPUs would look like this):
    # the guard the page's claim uses must then fail the build.
    path = tmp_path / "measurements.toml"
    path.write_text(TEXT.replace("output_tokens_per_s_total = 1846\n", "output_tokens_per_s_total = 184600\n", 1))
    monkeypatch.setenv("ROOFLINE_MEASUREMENTS", str(path))
    try:
        over = above_ceiling()
        assert [c.run.id for c in over] == ["oci-vllm-mi300x-llama-3.1-405b-batch-256"]
        with pytest.raises(ClaimFailed):
            claim(q.serving_runs_stat("max") < 1, "no published serving run exceeds its ceiling")
    finally:
        monkeypatch.delenv("ROOFLINE_MEASUREMENTS")
        measurements.REGISTRY.cache_clear()


def test_bad_token_arguments_are_one_sentence():
    with pytest.raises(InputError, match=r"^serving_runs_stat: stat must be one of median, q1, q3, min, max, got 'mean'$"):
        q.serving_runs_stat("mean")
    with pytest.raises(InputError, match=r"^serving_run_number: field must be one of"):
        q.serving_run_number("oci-vllm-mi300x-llama-3.1-405b-batch-1", "price")
    with pytest.raises(InputError, match=r"^no published serving run with engine 'LMDeploy'$"):
        q.serving_runs_stat("median", engine="LMDeploy")
    with pytest.raises(InputError, match=r"unknown serving measurement 'oci-vllm'"):
        q.serving_run_share("oci-vllm")


def test_expected_is_labelled_an_estimate_and_every_number_states_its_workload():
    e = q.serving_run_expected("trtllm-1.0-h200-llama-3.1-8b-1000-1000")
    assert "estimate" in e.label
    for fn in (q.serving_run_published, q.serving_run_ceiling, q.serving_run_expected, q.serving_run_share):
        label = fn("trtllm-1.0-h200-llama-3.1-8b-1000-1000").label
        assert "I 1000, O 1000" in label and "all requests queued" in label and "weights fp8" in label
    assert "concurrency" in q.serving_run_ceiling("trtllm-1.0-h200-llama-3.1-8b-1000-1000").label
    assert math.isclose(float(q.serving_runs_count()), len(RAW))


def test_stats_by_model_cover_only_that_model():
    # The Qwen3-235B-A22B runs: nine FP8 TensorRT-LLM rows on H100 and H200 (the H100's 128/128
    # cell is empty on the page) and three NVFP4 rows on B200 (128/2048, 1000/1000, 2048/2048).
    assert q.serving_runs_stat("max", model="qwen3-235b-a22b").label.startswith("highest of published ÷ ceiling over all 12")
    qwen = [ceiling(get_serving(e["id"])).share for e in RAW if e["model"] == "qwen3-235b-a22b"]
    assert float(q.serving_runs_stat("max", model="qwen3-235b-a22b")) == max(qwen)
    with pytest.raises(InputError, match=r"^no published serving run with engine 'vLLM', model 'qwen3-235b-a22b'$"):
        q.serving_runs_stat("median", engine="vLLM", model="qwen3-235b-a22b")


def test_stats_by_weight_format_cover_only_that_format():
    # The page's Blackwell columns recorded: Llama 3.3 70B on B200 (4 lengths) and GB200 (2),
    # Llama 3.1 405B on four B200s (3), Qwen3-235B-A22B on eight B200s (3), Qwen3-30B-A3B on one
    # B200 (2): 14 NVFP4 runs, every one on a device with an FP4 peak and FP4 activations.
    nvfp4 = [e for e in RAW if e["weight_format"] == "nvfp4"]
    assert len(nvfp4) == 14 and float(q.serving_runs_count(weight_format="nvfp4")) == 14
    assert all(e["device"] in ("b200", "gb200-per-gpu") and e["activation_format"] == "fp4" for e in nvfp4)
    shares = sorted(ceiling(get_serving(e["id"])).share for e in nvfp4)
    assert float(q.serving_runs_stat("median", weight_format="nvfp4")) == statistics.median(shares)
    assert float(q.serving_runs_stat("min", weight_format="nvfp4")) == shares[0]
    with pytest.raises(InputError, match=r"^no published serving run with engine 'vLLM', weight format 'nvfp4'$"):
        q.serving_runs_stat("median", engine="vLLM", weight_format="nvfp4")


def test_the_bound_token_names_what_binds_the_ceiling():
    # One request of 405B: each step reads every weight (bandwidth); 256 of them: compute.
    assert q.serving_run_bound("oci-vllm-mi300x-llama-3.1-405b-batch-1") == "bandwidth"
    assert q.serving_run_bound("oci-vllm-mi300x-llama-3.1-405b-batch-256") == "compute"
