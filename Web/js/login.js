// The login page: POST /api/login, then back to where the app was (`?next=`, a path of this site only).

const form = document.getElementById('login-form');
const message = document.getElementById('login-message');

function destination() {
  const next = new URLSearchParams(location.search).get('next') || '/';
  // Only a path on this site: never an address elsewhere ("//evil.example", "https:…").
  return next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  message.hidden = true;
  const name = form.elements.name.value.trim();
  const password = form.elements.password.value;
  let response;
  try {
    response = await fetch('/api/login', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, password }), cache: 'no-store',
    });
  } catch {
    message.textContent = 'The server cannot be reached.';
    message.hidden = false;
    return;
  }
  if (response.ok) {
    location.replace(destination());
    return;
  }
  let text = 'Wrong name or password.';
  try {
    const data = await response.json();
    if (response.status === 429 && data.error) text = data.error.message;
  } catch { /* keep the default */ }
  message.textContent = text;
  message.hidden = false;
  form.elements.password.select();
});
