"""The names `roofline.calculator_view` still imports from here, kept working until it moves off.

Nothing else imports this module. Byte accounting lives in `roofline.model.accounting`; the
whole-step perfect-overlap bound in `roofline.model.perfect_overlap`; step times in
`roofline.model.kernels`.
"""

from roofline.model.accounting import kv_bytes_per_token, weight_bytes_per_token, weight_bytes_resident  # noqa: F401
from roofline.model.kernels import experts_touched  # noqa: F401
from roofline.model.perfect_overlap import (  # noqa: F401
    ACTIVATION_DTYPE, MAX_SIZE, Step, _size, critical_batch, crossover_prompt_len, decode_step, prefill,
    speed_of_light_tokens_per_s,
)
