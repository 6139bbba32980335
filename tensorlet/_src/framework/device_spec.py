"""``tf.DeviceSpec``: a (partial) device name ``/job:<j>/replica:<r>/task:<t>/device:<type>:<index>``, parsed,
merged and printed as TF does.  Immutable: ``replace`` and ``make_merged_spec`` return new specs."""

from __future__ import annotations

import re

from tensorlet._src.framework.api_export import export_value

_FIELDS = ("job", "replica", "task", "device_type", "device_index")


class DeviceSpec:
    """A device name.  ``tf.DeviceSpec(job="ps", device_type="GPU", device_index=0).to_string()`` ->
    ``'/job:ps/device:GPU:0'``."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_str")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = None if job is None else str(job)
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        dt = None if device_type is None else str(device_type)
        self._device_type = dt.upper() if dt and dt.upper() in ("CPU", "GPU") else dt
        self._device_index = None if device_index is None or device_index == "*" else int(device_index)
        self._str = self._render()

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    def _render(self):
        out = ""
        if self._job is not None:
            out += f"/job:{self._job}"
        if self._replica is not None:
            out += f"/replica:{self._replica}"
        if self._task is not None:
            out += f"/task:{self._task}"
        if self._device_type is not None:
            out += f"/device:{self._device_type}:{'*' if self._device_index is None else self._device_index}"
        elif self._device_index is not None:
            out += f"/device:*:{self._device_index}"
        return out

    def to_string(self):
        """The spec as a device name string."""
        return self._str

    @classmethod
    def from_string(cls, spec):
        """Parses ``/job:x/replica:0/task:1/device:GPU:2`` (also the short ``/gpu:1`` / ``/cpu:0`` forms)."""
        return cls(**_parse(spec))

    def parse_from_string(self, spec):
        """A new spec parsed from ``spec`` (TF2 specs are immutable)."""
        return DeviceSpec.from_string(spec)

    def make_merged_spec(self, dev):
        """This spec with the fields that ``dev`` sets taken from ``dev``."""
        kw = {f: getattr(self, f) for f in _FIELDS}
        kw.update({f: getattr(dev, f) for f in _FIELDS if getattr(dev, f) is not None})
        return DeviceSpec(**kw)

    def replace(self, **kwargs):
        """A copy with the given fields replaced."""
        kw = {f: getattr(self, f) for f in _FIELDS}
        for k, v in kwargs.items():
            if k not in kw:
                raise TypeError(f"replace() got an unexpected keyword argument {k!r}")
            kw[k] = v
        return DeviceSpec(**kw)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self._str == other._str

    def __hash__(self):
        return hash(self._str)

    def __repr__(self):
        return ("<DeviceSpec(" + ", ".join(f"{f}={getattr(self, f)}" for f in _FIELDS) + ")>")


def _parse(spec):
    out = {}
    if spec is None or spec == "":
        return out
    if isinstance(spec, DeviceSpec):
        return {f: getattr(spec, f) for f in _FIELDS}
    for part in str(spec).split("/"):
        if not part:
            continue
        bits = part.split(":")
        key = bits[0].lower()
        if key == "job" and len(bits) == 2:
            out["job"] = bits[1]
        elif key == "replica" and len(bits) == 2:
            out["replica"] = int(bits[1])
        elif key == "task" and len(bits) == 2:
            out["task"] = int(bits[1])
        elif key == "device" and len(bits) in (2, 3):
            out["device_type"] = None if bits[1] == "*" else bits[1]
            if len(bits) == 3 and bits[2] != "*":
                out["device_index"] = int(bits[2])
        elif key in ("cpu", "gpu", "tpu") and len(bits) == 2:
            out["device_type"] = key.upper()
            if bits[1] != "*":
                out["device_index"] = int(bits[1])
        elif re.fullmatch(r"[A-Za-z_]+", key) and len(bits) == 2:
            out["device_type"] = bits[0].upper()
            if bits[1] != "*":
                out["device_index"] = int(bits[1])
        else:
            raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
    return out


export_value("DeviceSpec", __name__, "DeviceSpec")
