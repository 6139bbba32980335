"""``tfmot.quantization.keras``: quantization-aware training (see ``tensorlet._src.tfmot.qat``)."""

from tensorlet._src.tfmot.qat import QuantizeLayer, QuantizeWrapperV2, fake_quant, quantize_model

__all__ = ["QuantizeLayer", "QuantizeWrapperV2", "fake_quant", "quantize_model"]
