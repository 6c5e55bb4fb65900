// The Settings tab: units, and breadcrumbs on or off. Kept on the device (localStorage).

const $ = (id) => document.getElementById(id);

export function breadcrumbsEnabled() {
  return localStorage.getItem('bikeride.breadcrumbs') !== 'off';
}

export class SettingsView {
  constructor(onChange) {
    const form = $('settings-form');
    form.addEventListener('change', () => {
      localStorage.setItem('bikeride.units', form.elements.units.value);
      localStorage.setItem('bikeride.breadcrumbs', form.elements.breadcrumbs.checked ? 'on' : 'off');
      onChange();
    });
  }

  show() {
    const form = $('settings-form');
    form.elements.units.value = localStorage.getItem('bikeride.units') === 'imperial' ? 'imperial' : 'metric';
    form.elements.breadcrumbs.checked = breadcrumbsEnabled();
  }
}
