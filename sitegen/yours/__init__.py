"""The reader's own model (build.py --data): its dataset, report and deploy decision, computed with
the same stages as a built-in dataset."""
