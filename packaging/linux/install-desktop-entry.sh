#!/bin/sh
# Adds arxpy to this user's application menu (no root needed): copies the icons and a
# desktop entry whose Exec names this folder's arxpy executable. Run it again after
# moving the folder; remove ~/.local/share/applications/arxpy.desktop to undo.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
for theme_dir in "$here"/share/icons/hicolor/*/apps; do
    size=$(basename "$(dirname "$theme_dir")")
    mkdir -p "$data/icons/hicolor/$size/apps"
    cp "$theme_dir"/arxpy.* "$data/icons/hicolor/$size/apps/"
done
mkdir -p "$data/applications"
sed -e "s|^Exec=arxpy|Exec=\"$here/arxpy\"|" -e "s|^TryExec=arxpy|TryExec=$here/arxpy|" \
    "$here/share/applications/arxpy.desktop" > "$data/applications/arxpy.desktop"
echo "arxpy added to the application menu ($data/applications/arxpy.desktop)"
