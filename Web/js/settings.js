// The Settings tab: units, breadcrumbs, speech, and how a ride is recorded (activity, auto-pause, screen on),
// and the theme. Kept on the device (localStorage).

const $ = (id) => document.getElementById(id);

export const ACTIVITIES = ['ride', 'run', 'walk'];
/** Auto-pause when the rider stops, per activity: on for rides and walks, off for runs (a runner at a light pauses their watch). */
const AUTO_PAUSE_DEFAULT = { ride: true, run: false, walk: true };

export function breadcrumbsEnabled() {
  return localStorage.getItem('bikeride.breadcrumbs') !== 'off';
}

/** Spoken turn instructions while following a route (on unless switched off). */
export function speechEnabled() {
  return localStorage.getItem('bikeride.speech') !== 'off';
}

/** What the next ride is recorded as: ride, run or walk. */
export function activity() {
  const value = localStorage.getItem('bikeride.activity');
  return ACTIVITIES.includes(value) ? value : 'ride';
}

export function autoPauseEnabled(kind) {
  const value = localStorage.getItem(`bikeride.autoPause.${kind}`);
  return value === null ? Boolean(AUTO_PAUSE_DEFAULT[kind]) : value === 'on';
}

/** Keep the screen on while recording (Screen Wake Lock; on unless switched off). */
export function wakeLockEnabled() {
  return localStorage.getItem('bikeride.wakeLock') !== 'off';
}

/** auto (the system's light or dark), day or night. */
export function theme() {
  const value = localStorage.getItem('bikeride.theme');
  return value === 'day' || value === 'night' ? value : 'auto';
}

export function applyTheme() {
  document.documentElement.dataset.theme = theme();
}
applyTheme();

export class SettingsView {
  constructor(onChange) {
    const form = $('settings-form');
    form.addEventListener('change', () => {
      localStorage.setItem('bikeride.units', form.elements.units.value);
      localStorage.setItem('bikeride.breadcrumbs', form.elements.breadcrumbs.checked ? 'on' : 'off');
      if (form.elements.speech) localStorage.setItem('bikeride.speech', form.elements.speech.checked ? 'on' : 'off');
      if (form.elements.activity) localStorage.setItem('bikeride.activity', form.elements.activity.value);
      for (const kind of ACTIVITIES) {
        const box = form.elements[`autoPause-${kind}`];
        if (box) localStorage.setItem(`bikeride.autoPause.${kind}`, box.checked ? 'on' : 'off');
      }
      if (form.elements.wakeLock) localStorage.setItem('bikeride.wakeLock', form.elements.wakeLock.checked ? 'on' : 'off');
      if (form.elements.theme) localStorage.setItem('bikeride.theme', form.elements.theme.value);
      applyTheme();
      onChange();
    });
  }

  show() {
    const form = $('settings-form');
    form.elements.units.value = localStorage.getItem('bikeride.units') === 'imperial' ? 'imperial' : 'metric';
    form.elements.breadcrumbs.checked = breadcrumbsEnabled();
    if (form.elements.speech) {
      // Feature-detected: a browser without speech says so rather than offering a switch that does nothing.
      const available = 'speechSynthesis' in window;
      form.elements.speech.checked = available && speechEnabled();
      form.elements.speech.disabled = !available;
      document.getElementById('speech-unavailable').hidden = available;
    }
    if (form.elements.activity) form.elements.activity.value = activity();
    for (const kind of ACTIVITIES) {
      const box = form.elements[`autoPause-${kind}`];
      if (box) box.checked = autoPauseEnabled(kind);
    }
    if (form.elements.wakeLock) {
      form.elements.wakeLock.checked = wakeLockEnabled();
      document.getElementById('wake-lock-unavailable').hidden = 'wakeLock' in navigator;
    }
    if (form.elements.theme) form.elements.theme.value = theme();
  }
}
