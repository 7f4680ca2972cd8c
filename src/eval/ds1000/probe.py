# Which of the modules named in MODULES this image can import, without importing them:
# prints one JSON object {name: true|false}. Run once per evaluation, in the task pool.
import importlib.util
import json

found = {}
for name in MODULES:  # noqa: F821  (defined by the line the host puts before this file)
    try:
        found[name] = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        found[name] = False
print(json.dumps(found))
