import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

pytest.importorskip("uvicorn")
pytest.importorskip("grpc")

import serving_util as su  # noqa: E402


@pytest.fixture(scope="session")
def zoo(tmp_path_factory):
    """Base paths of the test models."""
    root = tmp_path_factory.mktemp("models")
    su.save_mlp(str(root / "mlp" / "1"), seed=1)
    su.save_mlp(str(root / "mlp" / "2"), seed=2)
    su.save_multi(str(root / "multi" / "1"))
    su.save_classifier(str(root / "cls" / "3"))
    su.save_raiser(str(root / "raiser" / "1"))
    su.save_mlp(str(root / "half" / "1"), seed=5)
    su.save_broken(str(root / "half" / "2"))
    su.save_mlp(str(root / "hot" / "1"), seed=1)
    for name in ("mlp", "cnn"):  # SavedModels written by real TensorFlow (Keras 3 model.export())
        os.makedirs(root / f"tf_{name}")
        os.symlink(os.path.join(su.TF_SAVED_MODELS, name), root / f"tf_{name}" / "1")
    return root


@pytest.fixture(scope="session")
def server(zoo, tmp_path_factory):
    """One server for the REST and gRPC tests: several models, version policies, labels, Prometheus."""
    cfg = tmp_path_factory.mktemp("cfg")
    su.write_config(str(cfg / "models.config"), [
        ("mlp", str(zoo / "mlp"), "all {}", {"stable": 1, "canary": 2}),
        ("multi", str(zoo / "multi"), "", {}),
        ("cls", str(zoo / "cls"), "", {}),
        ("raiser", str(zoo / "raiser"), "", {}),
        ("half", str(zoo / "half"), "specific { versions: 1 versions: 2 }", {}),
        ("hot", str(zoo / "hot"), "", {}),
        ("tf_mlp", str(zoo / "tf_mlp"), "", {}),
        ("tf_cnn", str(zoo / "tf_cnn"), "", {}),
    ])
    with open(cfg / "monitoring.config", "w") as f:
        f.write('prometheus_config { enable: true path: "/monitoring/prometheus/metrics" }\n')
    s = su.Server(f"--model_config_file={cfg / 'models.config'}",
                  f"--monitoring_config_file={cfg / 'monitoring.config'}",
                  "--file_system_poll_wait_seconds=1", "--rest_api_num_threads=4",
                  wait_for=("mlp", "multi", "cls", "raiser", "half", "hot", "tf_mlp", "tf_cnn"))
    s.config_path = str(cfg / "models.config")
    yield s
    assert s.stop() == 0, s.log()
