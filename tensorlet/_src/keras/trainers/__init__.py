"""Keras 3's trainers: the ``fit``/``evaluate``/``predict`` loops (``trainer.py``), the compiled step runner
(``step_runner.py``), the epoch iterator and the data adapters that turn inputs into batches."""
