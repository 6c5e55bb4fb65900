// Pull a list row left to delete it: the Tracks and the Places lists.
//
// Before the gesture counts as a pull it must move SWIPE_SLOP_PX and go mostly sideways
// (|dx| > SWIPE_HORIZONTAL × |dy|); anything else is a scroll, left to the browser. Released past the threshold
// (SWIPE_DELETE_FRACTION of the row's width, at least SWIPE_DELETE_PX) it deletes; short of it, it springs back.
const SWIPE_SLOP_PX = 10;
const SWIPE_HORIZONTAL = 1.5;
const SWIPE_DELETE_FRACTION = 0.4;
const SWIPE_DELETE_PX = 96;

/**
 * Pulling `content` left with a finger uncovers `item`'s red area under it; let go past the threshold, `onSwipe`
 * runs. Rows are `touch-action: pan-y`, so a vertical gesture is the browser's scroll, which ends the touch with
 * a `pointercancel` — and a cancelled gesture never deletes.
 */
export function makeSwipeable(item, content, onSwipe) {
  let gesture = null;  // {pointerId, startX, startY, sideways}
  const reset = () => {
    gesture = null;
    item.classList.remove('swiping', 'swipe-armed');
    content.style.transform = '';
  };
  const threshold = () => Math.max(SWIPE_DELETE_PX, item.clientWidth * SWIPE_DELETE_FRACTION);
  item.addEventListener('pointerdown', (event) => {
    if (event.pointerType !== 'touch' || !event.isPrimary) return;
    gesture = { pointerId: event.pointerId, startX: event.clientX, startY: event.clientY, sideways: false };
  });
  item.addEventListener('pointermove', (event) => {
    if (!gesture || event.pointerId !== gesture.pointerId) return;
    const dx = event.clientX - gesture.startX, dy = event.clientY - gesture.startY;
    if (!gesture.sideways) {
      if (Math.hypot(dx, dy) < SWIPE_SLOP_PX) return;
      if (Math.abs(dx) <= SWIPE_HORIZONTAL * Math.abs(dy)) { reset(); return; }
      gesture.sideways = true;
      item.classList.add('swiping');
      try { item.setPointerCapture(event.pointerId); } catch { /* the pointer is gone already */ }
    }
    const pulled = Math.min(0, dx);
    content.style.transform = `translateX(${pulled}px)`;
    item.classList.toggle('swipe-armed', -pulled >= threshold());
  });
  item.addEventListener('pointerup', (event) => {
    if (!gesture || event.pointerId !== gesture.pointerId) return;
    const swiped = gesture.sideways;
    const deletes = swiped && -Math.min(0, event.clientX - gesture.startX) >= threshold();
    reset();
    if (swiped) {
      // The gesture ends over the row's link or button: the click the browser may make of it must do nothing.
      const swallow = (click) => { click.stopPropagation(); click.preventDefault(); };
      item.addEventListener('click', swallow, { capture: true, once: true });
      setTimeout(() => item.removeEventListener('click', swallow, { capture: true }), 400);
    }
    if (deletes) onSwipe();
  });
  item.addEventListener('pointercancel', (event) => {
    if (gesture && event.pointerId === gesture.pointerId) reset();
  });
}
