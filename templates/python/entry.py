# Links /opt/mcpbox/server to the console script of the package pip installed (read from pip's --report):
# its only console script, or the one named like the package. Runs with the venv's python.
import importlib.metadata as md
import json
import os
import re
import sys

report = json.load(open(sys.argv[1]))
requested = [i["metadata"]["name"] for i in report["install"] if i.get("requested")]
if len(requested) != 1:
    sys.exit(f"expected one installed package, found: {', '.join(requested) or 'none'}")
name = requested[0]
norm = lambda s: re.sub(r"[-_.]+", "-", s).lower()
scripts = [e.name for e in md.distribution(name).entry_points if e.group == "console_scripts"]
chosen = scripts[0] if len(scripts) == 1 else next((s for s in scripts if norm(s) == norm(name)), None)
if chosen is None:
    what = f"several console scripts ({', '.join(scripts)})" if scripts else "no console script"
    sys.exit(f"{name} has {what}: set command in the config")
os.symlink(f"/opt/mcpbox/venv/bin/{chosen}", "/opt/mcpbox/server")
print(f"entrypoint: {name} console script {chosen}")
