// The login page: POST /api/login, then back to where the app was (`?next=`, a path of this site only).

const form = document.getElementById('login-form');
const message = document.getElementById('login-message');

/**
 * Where to go after the login: `next` read as the browser will read it (a backslash is a slash, tabs and newlines
 * are dropped), and kept only when it stays on this site: "/\\evil.example/" and "/%09/evil.example" are
 * "//evil.example" to the browser, another site.
 */
export function destination(next = new URLSearchParams(location.search).get('next'), origin = location.origin) {
  if (!next || !next.startsWith('/')) return '/';
  let url;
  try { url = new URL(next, origin); } catch { return '/'; }
  if (url.origin !== origin) return '/';
  return url.pathname + url.search + url.hash;
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
