"""Keras callbacks (Keras 3 semantics).  The package re-exports the names the training loop uses."""

from tensorlet._src.keras.callbacks.callback import (  # noqa: F401
    Callback,
    CallbackList,
    History,
    LambdaCallback,
    ProgbarLogger,
    TerminateOnNaN,
    pythonify_logs,
)
from tensorlet._src.keras.callbacks.checkpoint import BackupAndRestore, CSVLogger, ModelCheckpoint  # noqa: F401
from tensorlet._src.keras.callbacks.monitor import (  # noqa: F401
    EarlyStopping,
    LearningRateScheduler,
    ReduceLROnPlateau,
)
