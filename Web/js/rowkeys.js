// Lists of rows (tracks, places) with the keyboard: one Tab stop per row (its link), so that Tab moves from row to
// row; in a row, the arrow keys reach its buttons, and the Delete key presses its Delete button. Works on the rows
// as they are rendered (tracks.js and places.js build them), whenever the list changes.

/** Makes each row of `list` (an `ul` of `li` holding a link and buttons) a single Tab stop. */
export function oneTabStopPerRow(list) {
  const update = () => {
    for (const item of list.children) {
      const [first, ...others] = controls(item);
      if (!first) continue;
      if (!first.hasAttribute('aria-keyshortcuts') && item.querySelector('.delete')) first.setAttribute('aria-keyshortcuts', 'Delete');
      for (const other of others) other.tabIndex = -1;
    }
  };
  new MutationObserver(update).observe(list, { childList: true });
  update();

  list.addEventListener('keydown', (event) => {
    const item = event.target.closest('li');
    if (!item || item.parentElement !== list || event.altKey || event.ctrlKey || event.metaKey) return;
    const inRow = controls(item);
    const index = inRow.indexOf(event.target);
    if (index < 0) return;
    let next = null;
    if (event.key === 'ArrowRight') next = inRow[Math.min(inRow.length - 1, index + 1)];
    else if (event.key === 'ArrowLeft') next = inRow[Math.max(0, index - 1)];
    else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      const rows = [...list.children].filter((row) => !row.hidden && controls(row).length);
      const row = rows[rows.indexOf(item) + (event.key === 'ArrowDown' ? 1 : -1)];
      next = row ? controls(row)[0] : null;
    } else if (event.key === 'Delete' && index === 0) {
      const remove = item.querySelector('.delete');
      if (remove) {
        event.preventDefault();
        remove.click();
      }
      return;
    } else {
      return;
    }
    event.preventDefault();
    if (next) next.focus();
  });
}

function controls(item) {
  return [...item.querySelectorAll('a[href], button, input, select, textarea')].filter((element) => !element.disabled);
}

/**
 * Skip links (`a.skip-link[data-skip]`) move the focus to their target without changing the address: the hash is
 * the app's route (`#/tracks`), which `#track-list` would replace.
 */
export function handleSkipLinks() {
  document.addEventListener('click', (event) => {
    const link = event.target.closest('a.skip-link[data-skip]');
    if (!link) return;
    const target = document.getElementById(link.dataset.skip);
    if (!target) return;
    event.preventDefault();
    if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
    target.focus();
  });
}
