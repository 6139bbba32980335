"""Cases shared by the Keras-applications recorder (real Keras 3 on TF) and our tests.

Both sides run the same functions over their own ``keras`` module: a summary of each model (parameter counts,
layer count, a hash of the ordered (layer name, class, weight names and shapes) list), deterministic weights
derived from each weight's path (so predictions can be compared without shipping weight files), and the
preprocess/decode cases.
"""

import hashlib
import zlib

import numpy as np

# (golden key, module attribute, constructor kwargs).  Small inputs where Keras allows them, so building is quick.
MODELS = [
    ("ResNet50", "ResNet50", {"input_shape": (32, 32, 3)}),
    ("ResNet101", "ResNet101", {"input_shape": (32, 32, 3)}),
    ("ResNet152", "ResNet152", {"input_shape": (32, 32, 3)}),
    ("ResNet50V2", "ResNet50V2", {"input_shape": (32, 32, 3)}),
    ("ResNet101V2", "ResNet101V2", {"input_shape": (32, 32, 3)}),
    ("ResNet152V2", "ResNet152V2", {"input_shape": (32, 32, 3)}),
    ("VGG16", "VGG16", {"input_shape": (32, 32, 3)}),
    ("VGG19", "VGG19", {"input_shape": (32, 32, 3)}),
    ("VGG16_notop_max", "VGG16", {"input_shape": (32, 32, 3), "include_top": False, "pooling": "max"}),
    ("MobileNet", "MobileNet", {"input_shape": (32, 32, 3)}),
    ("MobileNet_a025_notop", "MobileNet", {"input_shape": (32, 32, 3), "alpha": 0.25, "include_top": False}),
    ("MobileNetV2", "MobileNetV2", {"input_shape": (32, 32, 3)}),
    ("MobileNetV2_a035_avg", "MobileNetV2", {"input_shape": (32, 32, 3), "alpha": 0.35, "include_top": False,
                                             "pooling": "avg"}),
    ("MobileNetV3Small", "MobileNetV3Small", {"input_shape": (32, 32, 3)}),
    ("MobileNetV3Large", "MobileNetV3Large", {"input_shape": (32, 32, 3)}),
    ("MobileNetV3Small_min", "MobileNetV3Small", {"input_shape": (32, 32, 3), "minimalistic": True,
                                                  "include_top": False, "pooling": "avg"}),
    ("DenseNet121", "DenseNet121", {"input_shape": (32, 32, 3)}),
    ("DenseNet169", "DenseNet169", {"input_shape": (32, 32, 3)}),
    ("DenseNet201", "DenseNet201", {"input_shape": (32, 32, 3)}),
    ("ResNet50_classes10", "ResNet50", {"input_shape": (32, 32, 3), "classes": 10,
                                        "classifier_activation": None}),
]
for _b in range(8):
    MODELS.append((f"EfficientNetB{_b}", f"EfficientNetB{_b}", {"input_shape": (32, 32, 3)}))
for _v in ("B0", "B1", "B2", "B3", "S", "M", "L"):
    MODELS.append((f"EfficientNetV2{_v}", f"EfficientNetV2{_v}", {"input_shape": (32, 32, 3)}))
MODELS += [
    ("InceptionV3", "InceptionV3", {"input_shape": (75, 75, 3)}),
    ("InceptionResNetV2", "InceptionResNetV2", {"input_shape": (75, 75, 3)}),
    ("Xception", "Xception", {"input_shape": (71, 71, 3)}),
    ("ConvNeXtTiny", "ConvNeXtTiny", {"input_shape": (32, 32, 3)}),
    ("ConvNeXtSmall", "ConvNeXtSmall", {"input_shape": (32, 32, 3)}),
    ("ConvNeXtBase", "ConvNeXtBase", {"input_shape": (32, 32, 3)}),
    ("NASNetMobile", "NASNetMobile", {"input_shape": (32, 32, 3)}),
]

# Models whose predictions under deterministic weights are compared (key, input shape incl. batch).
PREDICT = [("ResNet50", (2, 32, 32, 3)), ("MobileNetV2", (2, 32, 32, 3)), ("MobileNetV3Small", (2, 32, 32, 3)),
           ("MobileNet_a025_notop", (2, 32, 32, 3)), ("NASNetMobile", (2, 32, 32, 3))]


def weight_name(w):
    name = getattr(w, "name", "")
    return name.split("/")[-1].split(":")[0]


def summarize(model):
    rows = []
    for layer in model.layers:
        rows.append([layer.name, type(layer).__name__,
                     [[weight_name(w), [int(d) for d in w.shape]] for w in layer.weights]])
    text = repr(rows).encode()
    trainable = int(sum(int(np.prod(w.shape)) for w in model.trainable_weights))
    total = int(sum(int(np.prod(w.shape)) for w in model.weights))
    return {"total_params": total, "trainable_params": trainable, "layers": len(rows),
            "hash": hashlib.sha256(text).hexdigest()[:16], "first": rows[:6], "last": rows[-4:],
            "output_shape": [d if d is None else int(d) for d in model.output.shape]}


def deterministic_value(layer_name, wname, shape):
    """Values for one weight, a function of its path and shape only (BN variances stay positive)."""
    rng = np.random.RandomState(zlib.crc32(f"{layer_name}/{wname}".encode()) & 0x7FFFFFFF)
    shape = tuple(int(d) for d in shape)
    if wname in ("moving_variance", "gamma"):
        return rng.uniform(0.8, 1.2, shape).astype("float32")
    if wname in ("moving_mean", "beta", "bias"):
        return rng.uniform(-0.05, 0.05, shape).astype("float32")
    fan_in = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    if wname == "depthwise_kernel":
        fan_in = int(np.prod(shape[:2]))
    return (rng.standard_normal(shape) * np.sqrt(1.0 / max(fan_in, 1))).astype("float32")


def set_deterministic_weights(model):
    for layer in model.layers:
        ws = layer.weights
        if ws:
            layer.set_weights([deterministic_value(layer.name, weight_name(w), w.shape) for w in ws])


def fixed_input(shape):
    return np.random.RandomState(0).uniform(0, 255, shape).astype("float32")


def class_index():
    return {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}


def preprocess_cases():
    rng = np.random.RandomState(1)
    return {"img4": rng.uniform(0, 255, (2, 3, 4, 3)).astype("float32"),
            "img3": rng.uniform(0, 255, (3, 4, 3)).astype("float32"),
            "img4_cf": rng.uniform(0, 255, (2, 3, 4, 4)).astype("float32"),
            "img3_cf": rng.uniform(0, 255, (3, 4, 5)).astype("float32"),
            "uint8": rng.randint(0, 256, (1, 2, 2, 3)).astype("uint8")}


# (module, mode) pairs whose preprocess_input is compared; mode None means the family's own default.
PREPROCESS_FAMILIES = ["resnet50", "resnet_v2", "vgg16", "vgg19", "mobilenet", "mobilenet_v2", "mobilenet_v3",
                       "densenet", "efficientnet", "efficientnet_v2", "inception_v3", "inception_resnet_v2",
                       "xception", "convnext", "nasnet"]


def decode_preds():
    return np.random.RandomState(2).uniform(0, 1, (2, 1000)).astype("float32")
