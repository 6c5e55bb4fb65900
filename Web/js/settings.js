// The Settings tab: units, and breadcrumbs on or off. Kept on the device (localStorage).

const $ = (id) => document.getElementById(id);

export function breadcrumbsEnabled() {
  return localStorage.getItem('bikeride.breadcrumbs') !== 'off';
}

/** Spoken turn instructions while following a route (on unless switched off). */
export function speechEnabled() {
  return localStorage.getItem('bikeride.speech') !== 'off';
}

export class SettingsView {
  constructor(onChange) {
    const form = $('settings-form');
    form.addEventListener('change', () => {
      localStorage.setItem('bikeride.units', form.elements.units.value);
      localStorage.setItem('bikeride.breadcrumbs', form.elements.breadcrumbs.checked ? 'on' : 'off');
      if (form.elements.speech) localStorage.setItem('bikeride.speech', form.elements.speech.checked ? 'on' : 'off');
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
  }
}
