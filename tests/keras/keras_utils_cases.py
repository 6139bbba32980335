"""A tiny directory tree (images, texts, wavs) shared by tools/record_tf_goldens/keras_utils.py (Keras 3 on TF ->
tests/goldens/keras_utils.json) and tests/keras/test_utils_datasets.py; ``run`` records what the dataset builders
return: class names, file order, labels, pixel values, texts, audio, timeseries windows."""

import os
import wave

import numpy as np

CLASSES = {"cats": 5, "dogs": 4, "zebra": 3}


def make_tree(root):
    from PIL import Image

    img_dir, txt_dir, wav_dir = (os.path.join(root, d) for d in ("img", "txt", "wav"))
    k = 0
    for c, n in CLASSES.items():
        for d in (img_dir, txt_dir, wav_dir):
            os.makedirs(os.path.join(d, c), exist_ok=True)
        for i in range(n):
            k += 1
            a = ((np.arange(5 * 7 * 3).reshape(5, 7, 3) * (k + 3) * 11) % 256).astype(np.uint8)
            ext = ["png", "jpg", "bmp"][i % 3] if c != "zebra" else "png"
            Image.fromarray(a).save(os.path.join(img_dir, c, f"im{i:02d}.{ext}"))
            with open(os.path.join(txt_dir, c, f"t{i}.txt"), "w") as f:
                f.write(f"{c} text number {i} " + "x" * (i * 3))
            with wave.open(os.path.join(wav_dir, c, f"a{i}.wav"), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(8000)
                w.writeframes((np.sin(np.arange(10 + 3 * i) * (k + 1)) * 20000).astype("<i2").tobytes())
        with open(os.path.join(img_dir, c, "notes.md"), "w") as f:
            f.write("ignored")
    return img_dir, txt_dir, wav_dir


def _arr(x):
    a = np.asarray(x)
    if a.dtype.kind in "OSU":
        return [v.decode() if isinstance(v, bytes) else str(v) for v in a.reshape(-1)]
    return np.round(a.astype(np.float64), 3).tolist()


def _collect(ds):
    out = []
    for b in ds:
        if isinstance(b, tuple):
            out.append([_arr(v) for v in b])
        else:
            out.append([_arr(b)])
    return out


def run(keras, root):
    img, txt, wav = make_tree(root)
    U = keras.utils
    rec = {}
    ds = U.image_dataset_from_directory(img, image_size=(3, 4), batch_size=5, shuffle=False, verbose=False)
    rec["img_noshuffle"] = {"class_names": ds.class_names,
                            "files": [os.path.relpath(p, img) for p in ds.file_paths], "batches": _collect(ds)}
    ds = U.image_dataset_from_directory(img, image_size=(4, 4), batch_size=4, shuffle=True, seed=1337,
                                        label_mode="categorical",
                                        crop_to_aspect_ratio=True, verbose=False)
    rec["img_shuffle"] = {"files": [os.path.relpath(p, img) for p in ds.file_paths], "batches": _collect(ds)}
    tr, va = U.image_dataset_from_directory(img, image_size=(2, 2), batch_size=3, seed=7, validation_split=0.25,
                                            subset="both", interpolation="nearest", verbose=False)
    rec["img_split"] = {"train_files": [os.path.relpath(p, img) for p in tr.file_paths],
                        "val_files": [os.path.relpath(p, img) for p in va.file_paths],
                        "train": _collect(tr), "val": _collect(va)}
    ds = U.image_dataset_from_directory(img, labels=None, image_size=(2, 3), batch_size=20, shuffle=False,
                                        verbose=False)
    rec["img_nolabels"] = {"batches": _collect(ds)}
    ds = U.text_dataset_from_directory(txt, batch_size=4, shuffle=True, seed=3, max_length=12, verbose=False)
    rec["text"] = {"class_names": ds.class_names, "batches": _collect(ds)}
    ds = U.text_dataset_from_directory(txt, batch_size=6, shuffle=False, label_mode="int", verbose=False)
    rec["text_noshuffle"] = {"batches": _collect(ds)}
    ds = U.audio_dataset_from_directory(wav, batch_size=4, shuffle=False, verbose=False)
    rec["audio"] = {"batches": _collect(ds)}
    ds = U.audio_dataset_from_directory(wav, batch_size=5, shuffle=False, output_sequence_length=12, verbose=False)
    rec["audio_len"] = {"batches": _collect(ds)}
    data = np.arange(30).reshape(15, 2)
    ds = U.timeseries_dataset_from_array(data, np.arange(15) * 10, sequence_length=4, sequence_stride=2,
                                         sampling_rate=2, batch_size=3)
    rec["timeseries"] = {"batches": _collect(ds)}
    ds = U.timeseries_dataset_from_array(data, None, sequence_length=3, start_index=2, end_index=12, batch_size=4,
                                         shuffle=True, seed=5)
    rec["timeseries_shuffle"] = {"batches": _collect(ds)}
    return rec
