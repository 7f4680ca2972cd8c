#!/usr/bin/env bash
# The main job. Until the server lands: check the sandbox and run an example cell.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
node bin/analyst.js sandbox doctor
printf 'import pandas as pd\nframe = pd.DataFrame({"city": ["北京", "上海", "广州"], "sales": [3, 5, 2]})\nprint(frame.describe())\n' |
  node bin/analyst.js exec -
