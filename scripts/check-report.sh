#!/usr/bin/env bash
# Checks a rocesim report (report.html or compare.html) in headless Chromium:
#   * the page loads with no console message at all (it has no script of its own,
#     so any message is an error: a parse problem, a blocked load, ...);
#   * every <figure> holds an inline SVG that the browser lays out at a real size
#     and that draws shapes (lines, bars), i.e. every figure has data;
#   * a screenshot of the top 12000 px is written beside the page (<page>.png)
#     for a person to look at.
# The check runs on a copy of the page with a small script appended that measures
# the figures and logs one "REPORT-CHECK" line; the report itself stays script-free.
#
# Usage: scripts/check-report.sh RUN_DIR/report.html [more pages...]
# Needs Debian's chromium; installs it with apt-get when missing and run as root.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 PAGE.html..." >&2
    exit 2
fi
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's chromium..." >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "error: chromium is not installed (apt-get install chromium)" >&2
        exit 2
    fi
fi

status=0
for page in "$@"; do
    if [ ! -f "$page" ]; then
        echo "error: $page: no such file" >&2
        exit 2
    fi
    dir=$(cd "$(dirname "$page")" && pwd)
    name=$(basename "$page" .html)
    tmp=$(mktemp -d)
    # The copy lives beside the original so relative links resolve the same way.
    probe="$dir/.check-$name.$$.html"
    trap 'rm -rf "$tmp" "$probe"' EXIT
    probe_js='<script>
window.addEventListener("load", () => {
  const figs = [...document.querySelectorAll("figure")];
  const bad = figs.filter(f => {
    const s = f.querySelector("svg");
    if (!s) return true;
    const r = s.getBoundingClientRect();
    const shapes = s.querySelectorAll("polyline, rect, circle, path, line").length;
    return r.width < 200 || r.height < 100 || shapes < 5 || Number(f.dataset.points) < 1;
  }).map(f => f.id);
  console.log("REPORT-CHECK figures=" + figs.length + " bad=" + bad.join(","));
});
</script>'
    html=$(cat "$page")
    printf '%s%s</body>%s\n' "${html%</body>*}" "$probe_js" "${html##*</body>}" > "$probe"
    flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
        --disable-background-networking --disable-component-update --disable-sync
        --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0
        --virtual-time-budget=5000)
    timeout 120 chromium "${flags[@]}" --window-size=1100,1400 --dump-dom "file://$probe" >"$tmp/dom.html" 2>"$tmp/log.txt" || true
    timeout 120 chromium "${flags[@]}" --window-size=1100,12000 --screenshot="$dir/$name.png" "file://$page" >/dev/null 2>>"$tmp/log.txt" || true
    check=$(grep -o 'REPORT-CHECK[^"]*' "$tmp/log.txt" | head -1 || true)
    others=$(grep 'CONSOLE' "$tmp/log.txt" | grep -v 'REPORT-CHECK' || true)
    figures=$(grep -c '<figure ' "$page" || true)
    if [ -z "$check" ]; then
        echo "FAIL $page: the page did not finish loading (no REPORT-CHECK line)"
        status=1
    elif [ -n "$others" ]; then
        echo "FAIL $page: console messages:"
        echo "$others"
        status=1
    elif [[ "$check" != "REPORT-CHECK figures=$figures bad=" ]]; then
        echo "FAIL $page: $check (expected $figures figures, none bad)"
        status=1
    else
        echo "ok   $page: $figures figures laid out with data, no console message; screenshot $dir/$name.png"
    fi
    rm -rf "$tmp" "$probe"
    trap - EXIT
done
exit $status
