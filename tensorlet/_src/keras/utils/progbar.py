"""``keras.utils.Progbar``: Keras 3's progress bar, byte for byte.

verbose=1 redraws one line (backspaces over the previous line, then ``\\r``) with ANSI bold/green/white::

    157/157 ━━━━━━━━━━━━━━━━━━━━ 2s 9ms/step - accuracy: 0.9100 - loss: 0.3000

(the ETA while running, the elapsed seconds when finished); verbose=2 prints one line when finished::

    157/157 - 2s - 9ms/step - accuracy: 0.9100 - loss: 0.3000

Time comes from ``Progbar.clock`` (``time.time``), which tests replace to make the output deterministic.
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

from tensorlet._src.keras.utils.io_utils import print_msg
from tensorlet._src.ops.registry import tf_export


@tf_export("keras.utils.Progbar")
class Progbar:
    """Displays a progress bar.

    >>> bar = tf.keras.utils.Progbar(10, verbose=2)
    >>> for i in range(1, 11):
    ...     bar.update(i, values=[("loss", 0.5)])  # doctest: +SKIP
    10/10 - 0s - 3us/step - loss: 0.5000
    """

    clock = staticmethod(time.time)

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None, stateless_metrics=None,
                 unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Only one of `stateful_metrics` or `stateless_metrics` can be provided. "
                             "`stateful_metrics` is used to make metrics stateless by default (with an exclusion "
                             "list), while `stateless_metrics` is used to make metrics stateful by default (with an "
                             "exclusion list).")
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        if stateful_metrics is not None:
            self.stateful_metrics, self.stateless_metrics = set(stateful_metrics), None
        elif stateless_metrics is not None:
            self.stateful_metrics, self.stateless_metrics = None, set(stateless_metrics)
        else:
            self.stateful_metrics, self.stateless_metrics = set(), None
        self._dynamic_display = ((hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
                                 or "ipykernel" in sys.modules or "posix" in sys.modules
                                 or "PYCHARM_HOSTED" in os.environ)
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = self.clock()
        self._last_update = 0
        self._time_at_epoch_start = self._start
        self._time_after_first_step = None
        self._prev_total_width = 0

    def will_draw(self, margin=0.0):
        """Whether an ``update`` now would redraw the bar (``verbose=1`` draws at most every ``interval`` seconds;
        ``margin`` answers yes slightly early).  A caller whose values are costly to produce produces them only
        then: the bar shows only the latest value of a stateful metric, so skipped updates lose nothing."""
        return self.verbose == 1 and self.clock() - self._last_update >= self.interval - margin

    def update(self, current, values=None, finalize=None):
        """Moves the bar to step ``current``; ``values`` is a list of ``(name, value)`` pairs."""
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            stateless = (k not in self.stateful_metrics) if self.stateful_metrics is not None \
                else (k in self.stateless_metrics)
            if stateless:
                if finalize:
                    self._values[k] = [v, 1]
                else:
                    base = max(current - self._seen_so_far, 1)
                    if k not in self._values:
                        self._values[k] = [v * base, base]
                    else:
                        self._values[k][0] += v * base
                        self._values[k][1] += base
            else:
                self._values[k] = [v, 1]
        self._seen_so_far = current

        now = self.clock()
        time_per_unit = self._estimate_step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._print_line(current, finalize, now, time_per_unit)
        elif self.verbose == 2 and finalize and self.target is not None and self.target > 0:
            numdigits = int(math.log10(self.target)) + 1
            count = f"%{numdigits}d/%d" % (current, self.target)
            info = f"{count} - {now - self._start:.0f}s"
            info += f" -{self._format_time(time_per_unit, self.unit_name)}"
            for k in self._values_order:
                avg = self._average(k)
                info += f" - {k}: {avg:.4f}" if avg > 1e-3 else f" - {k}: {avg:.4e}"
            print_msg(info + "\n", line_break=False)
        self._last_update = now

    def _average(self, k):
        values, count = self._values[k]
        if not isinstance(values, float):
            values = np.mean(values)
        return values / max(1, count)

    def _print_line(self, current, finalize, now, time_per_unit):
        message = "\b" * self._prev_total_width + "\r" if self._dynamic_display else "\n"
        special = 0
        if self.target is not None and self.target > 0:
            numdigits = int(math.log10(self.target)) + 1
            bar = f"\x1b[1m{f'%{numdigits}d/%d' % (current, self.target)}\x1b[0m "
            special += 8
            prog_width = int(self.width * (float(current) / self.target))
            if prog_width > 0:
                bar += f"\x1b[32m{'━' * prog_width}\x1b[0m"
                special += 9
            bar += f"\x1b[37m{'━' * (self.width - prog_width)}\x1b[0m"
            special += 9
        else:
            bar = f"{int(current):7d}/Unknown"
        message += bar
        if self.target is not None and self.target > 0 and not finalize:
            eta = time_per_unit * (self.target - current)
            if eta > 3600:
                eta_format = f"{int(eta // 3600)}:{int((eta % 3600) // 60):02d}:{int(eta % 60):02d}"
            elif eta > 60:
                eta_format = f"{int(eta // 60)}:{int(eta % 60):02d}"
            else:
                eta_format = f"{int(eta)}s"
            info = f" \x1b[1m{eta_format}\x1b[0m"
        else:
            info = f" \x1b[1m{now - self._start:.0f}s\x1b[0m"
        special += 8
        info += self._format_time(time_per_unit, self.unit_name)
        for k in self._values_order:
            info += f" - {k}:"
            if isinstance(self._values[k], list):
                avg = self._average(k)
                info += f" {avg:.4f}" if abs(avg) > 1e-3 else f" {avg:.4e}"
            else:
                info += f" {self._values[k]}"
        message += info
        total_width = len(bar) + len(info) - special
        if self._prev_total_width > total_width:
            message += " " * (self._prev_total_width - total_width)
        if finalize:
            message += "\n"
        print_msg(message, line_break=False)
        self._prev_total_width = total_width

    def add(self, n, values=None):
        """Advances the bar by ``n`` steps."""
        self.update(self._seen_so_far + n, values)

    @staticmethod
    def _format_time(time_per_unit, unit_name):
        if time_per_unit >= 1 or time_per_unit == 0:
            return f" {time_per_unit:.0f}s/{unit_name}"
        if time_per_unit >= 1e-3:
            return f" {time_per_unit * 1e3:.0f}ms/{unit_name}"
        return f" {time_per_unit * 1e6:.0f}us/{unit_name}"

    def _estimate_step_duration(self, current, now):
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            time_per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            time_per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return time_per_unit
