// Runs the unit tests of Deploy/demo/bff.js that the modules below register, in the browser,
// against a fake fetch (real Response objects). Results go to window.results ({ done,
// passed: [name], failed: [{ name, message }] }), which Tests/Browser/bffjs_test.py reads;
// the WebAuthn tests use the virtual authenticator it adds.
import { tests } from './support.js';
import './fetch.test.js';
import './helpers.test.js';
import './webauthn.test.js';

const results = { done: false, passed: [], failed: [] };
window.results = results;

const log = document.getElementById('log');
for (const [name, body] of tests) {
  try {
    await body();
    results.passed.push(name);
    log.textContent += 'PASS ' + name + '\n';
  } catch (error) {
    results.failed.push({ name, message: String(error?.stack ?? error) });
    log.textContent += 'FAIL ' + name + ': ' + error + '\n';
  }
}
results.done = true;
