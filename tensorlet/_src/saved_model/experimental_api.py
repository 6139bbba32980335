"""``tf.saved_model.experimental``: ``VariablePolicy``, ``Fingerprint`` / ``read_fingerprint`` (the
``fingerprint.pb`` written next to ``saved_model.pb``) and ``TrackableResource``."""

from __future__ import annotations

import enum
import os

from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.saved_model import protos as P

__all__ = ["VariablePolicy", "Fingerprint", "read_fingerprint", "TrackableResource"]


@tf_export("saved_model.experimental.VariablePolicy")
class VariablePolicy(enum.Enum):
    """How distributed variables are saved (``SaveOptions(experimental_variable_policy=...)``)."""

    NONE = None
    SAVE_VARIABLE_DEVICES = "save_variable_devices"
    EXPAND_DISTRIBUTED_VARIABLES = "expand_distributed_variables"

    def _save_variable_devices(self):
        return self != VariablePolicy.NONE

    def _expand_distributed_variables(self):
        return self == VariablePolicy.EXPAND_DISTRIBUTED_VARIABLES

    @staticmethod
    def from_obj(obj):
        if obj is None:
            return VariablePolicy.NONE
        if isinstance(obj, VariablePolicy):
            return obj
        key = str(obj).lower()
        for policy in VariablePolicy:
            if key == policy.value:
                return policy
        raise ValueError(f"Received invalid VariablePolicy value: {obj}.")


@tf_export("saved_model.experimental.Fingerprint")
class Fingerprint:
    """The hashes identifying a SavedModel (its file, graph, signatures, object graph and checkpoint)."""

    def __init__(self, saved_model_checksum=None, graph_def_program_hash=None, signature_def_hash=None,
                 saved_object_graph_hash=None, checkpoint_hash=None, version=None):
        self.saved_model_checksum = saved_model_checksum
        self.graph_def_program_hash = graph_def_program_hash
        self.signature_def_hash = signature_def_hash
        self.saved_object_graph_hash = saved_object_graph_hash
        self.checkpoint_hash = checkpoint_hash
        self.version = version

    @classmethod
    def from_proto(cls, proto):
        """From a ``FingerprintDef`` message (or its serialized bytes)."""
        if isinstance(proto, (bytes, bytearray)):
            msg = P.FingerprintDef()
            msg.ParseFromString(bytes(proto))
            proto = msg
        return cls(proto.saved_model_checksum, proto.graph_def_program_hash, proto.signature_def_hash,
                   proto.saved_object_graph_hash, proto.checkpoint_hash, proto.version)

    def singleprint(self):
        """``graph_def_program_hash/signature_def_hash/saved_object_graph_hash/checkpoint_hash``."""
        try:
            return "/".join(str(int(x)) for x in (self.graph_def_program_hash, self.signature_def_hash,
                                                    self.saved_object_graph_hash, self.checkpoint_hash))
        except (TypeError, ValueError):
            raise ValueError("Encounted invalid fingerprint values when constructing singleprint."
                             f"graph_def_program_hash: {self.graph_def_program_hash}, signature_def_hash: "
                             f"{self.signature_def_hash}, saved_object_graph_hash: {self.saved_object_graph_hash}, "
                             f"checkpoint_hash: {self.checkpoint_hash}") from None

    def __eq__(self, other):
        if not isinstance(other, Fingerprint):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self):
        return hash(tuple(self.__dict__.values()))

    def __repr__(self):
        return (f"Fingerprint({self.saved_model_checksum}, {self.graph_def_program_hash}, {self.signature_def_hash}, "
                f"{self.saved_object_graph_hash}, {self.checkpoint_hash})")


@tf_export("saved_model.experimental.read_fingerprint")
def read_fingerprint(export_dir):
    """The Fingerprint of the SavedModel in ``export_dir`` (from its ``fingerprint.pb``)."""
    path = os.path.join(os.fspath(export_dir), "fingerprint.pb")
    if not os.path.exists(path):
        raise FileNotFoundError(f"SavedModel Fingerprint Error: Could not find fingerprint in directory: "
                                f"{export_dir}\nNOT_FOUND: {path} not found")
    size = os.path.getsize(path)
    if size > 1 << 20:
        raise ValueError(f"SavedModel Fingerprint Error: {path} is {size} bytes, too large for a fingerprint")
    with open(path, "rb") as f:
        return Fingerprint.from_proto(f.read())


@tf_export("saved_model.experimental.TrackableResource")
class TrackableResource:
    """Base class for objects owning a resource saved with a SavedModel: ``_create_resource`` makes it,
    ``_initialize`` fills it; ``resource_handle`` creates it on first use."""

    def __init__(self, device=""):
        self._resource_handle_value = None
        self._resource_device = device

    def _create_resource(self):
        raise NotImplementedError("TrackableResource subclasses define _create_resource()")

    def _initialize(self):
        return None

    def _destroy_resource(self):
        return None

    @property
    def resource_handle(self):
        if self._resource_handle_value is None:
            self._resource_handle_value = self._create_resource()
            self._initialize()
        return self._resource_handle_value

    @property
    def _resource_handle(self):
        return self.resource_handle
