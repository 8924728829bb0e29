"""The names `peggle_gym.client` has always had, from the modules that hold them by job:

- `peggle_gym.engines`: which `peggle` executable to run (`find_peggle`, the wheel's engines for
  this CPU: `bundled_peggle`, `cpu_flags`) and the version it must be (`VERSION`);
- `peggle_gym.pipe`: `PeggleClient`, one `peggle serve` process behind a pipe (the ``serve``
  backend), and its handshake;
- `peggle_gym.replies`: replies decoded (observations, infos typed by the engine's ``spec``,
  pictures, spaces);
- `peggle_gym.requests`: arguments checked and requests composed (`make_request`,
  `action_values`, `make_options`);
- `peggle_gym.level_paths`: level files and the bundled levels;
- `peggle_gym.errors`: `PeggleError` and its kinds.
"""
from __future__ import annotations

from .engines import (BUNDLED_PEGGLE, BUNDLED_PEGGLE_TUNED, GENERIC_VARIABLE, TUNED_CPU_FLAGS, VERSION,  # noqa: F401
                      bundled_peggle, cores, cpu_flags, find_peggle, source_checkout_peggle)
from .errors import PeggleError, PeggleServerDied, PeggleTimeout  # noqa: F401
from .level_paths import LEVELS_DIR, bundled_levels, level_file_names, level_files, level_path  # noqa: F401
from .pipe import HELLO_TIMEOUT, PROTOCOL_VERSION, PeggleClient, check_hello  # noqa: F401
from .replies import (FRAME, FRAME_ORDER, InfoTypes, decode_info, decode_info_columns, decode_obs,  # noqa: F401
                      decode_rgb, info_types, space_from)
from .requests import (DEFAULT_LEVELS, RESERVED, RGB_WIDTHS, SeededCycleWarning, action_shapes,  # noqa: F401
                       action_values, checked_num_envs, checked_render_width, checked_timeout, checked_width,
                       level_option, make_options, make_request, procedural_fields, server_seed)
