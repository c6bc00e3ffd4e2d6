// bff.js's WebAuthn JSON conversion (the browser's functions and the fallback) and base64url.
import { createBff, credentialJSON, creationOptions, fromBase64url, requestOptions, toBase64url } from './bff.js';
import {
  test, check, equal, bytes, rejection, fakeFetch, withPublicKeyCredential, signedIn, b64, requestJSON, creationJSON,
} from './support.js';

// ---- WebAuthn JSON conversion

test('requestOptions and creationOptions: the browser\'s parse functions and the fallback agree', async () => {
  check(typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function'
    && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function', 'this chromium has the native parse functions');
  // The members the JSON names (the browser adds its defaults, such as hints: []), bytes as arrays.
  const binary = (value) => value instanceof ArrayBuffer || ArrayBuffer.isView(value);
  const project = (value, like) => (binary(value) ? bytes(value)
    : Array.isArray(like) ? like.map((item, i) => project(value?.[i], item))
      : like && typeof like === 'object' ? Object.fromEntries(Object.keys(like).sort().map((k) => [k, project(value?.[k], like[k])]))
        : value);
  const nativeRequest = requestOptions(requestJSON);
  const nativeCreation = creationOptions(creationJSON);
  check(nativeRequest.challenge instanceof ArrayBuffer, 'native: an ArrayBuffer challenge');
  for (const replacement of [undefined, class OlderPublicKeyCredential {}]) {
    const what = replacement ? 'without parse functions' : 'without PublicKeyCredential';
    const [request, creation] = await withPublicKeyCredential(replacement,
      () => [requestOptions(requestJSON), creationOptions(creationJSON)]);
    check(request.challenge instanceof Uint8Array, what + ': the fallback decoded the challenge');
    equal(project(request, requestJSON), project(nativeRequest, requestJSON), what + ': request options');
    equal(project(creation, creationJSON), project(nativeCreation, creationJSON), what + ': creation options');
    equal(project(request, requestJSON).challenge, bytes(fromBase64url(requestJSON.challenge)), what + ': the challenge\'s bytes');
  }
});

// A credential as a browser without toJSON hands it over.
const withoutToJSON = (c) => ({
  id: c.id, rawId: c.rawId, type: c.type, response: c.response, getClientExtensionResults: () => c.getClientExtensionResults(),
});

test('credentialJSON of a real credential: toJSON and the fallback agree (virtual authenticator)', async () => {
  const challenge = crypto.getRandomValues(new Uint8Array(32));
  const created = await navigator.credentials.create({ publicKey: creationOptions({
    ...creationJSON, challenge: toBase64url(challenge), excludeCredentials: [], user: { ...creationJSON.user, id: b64([7, 7, 7]) },
  }) });
  check(typeof created.toJSON === 'function', 'this chromium has toJSON');
  const attestation = credentialJSON(created);
  const fallback = credentialJSON(withoutToJSON(created));
  for (const key of ['id', 'rawId', 'type']) equal(fallback[key], attestation[key], 'attestation ' + key);
  for (const key of ['clientDataJSON', 'attestationObject', 'transports']) {
    equal(fallback.response[key], attestation.response[key], 'attestation response.' + key);
  }
  equal(fallback.clientExtensionResults, attestation.clientExtensionResults, 'attestation clientExtensionResults');
  equal(bytes(fromBase64url(fallback.rawId)), bytes(created.rawId), 'rawId round trip');
  const clientData = JSON.parse(new TextDecoder().decode(fromBase64url(fallback.response.clientDataJSON)));
  equal([clientData.type, clientData.challenge], ['webauthn.create', toBase64url(challenge)], 'clientDataJSON decodes');

  const got = await navigator.credentials.get({ publicKey: requestOptions({
    challenge: toBase64url(challenge), rpId: 'localhost', userVerification: 'preferred',
    allowCredentials: [{ type: 'public-key', id: attestation.id }],
  }) });
  const assertion = credentialJSON(got);
  const assertionFallback = credentialJSON(withoutToJSON(got));
  for (const key of ['id', 'rawId', 'type']) equal(assertionFallback[key], assertion[key], 'assertion ' + key);
  for (const key of ['clientDataJSON', 'authenticatorData', 'signature', 'userHandle']) {
    check(typeof assertion.response[key] === 'string', 'assertion response.' + key + ' present', assertion.response);
    equal(assertionFallback.response[key], assertion.response[key], 'assertion response.' + key);
  }
  equal(assertion.response.userHandle, b64([7, 7, 7]), 'the user handle');
});

test('the browser\'s own fetch and navigator.credentials by default: enrol, then sign in (virtual authenticator)', async () => {
  const [created, asked] = [0, 1].map(() => toBase64url(crypto.getRandomValues(new Uint8Array(32))));
  const { fetch: fake, calls } = fakeFetch([
    { body: { options: { ...creationJSON, challenge: created, excludeCredentials: [], user: { ...creationJSON.user, id: b64([3, 1, 4]) } } } },
    { body: { Message: 'Passkey registered.' } },
    // The passkey just enrolled (the authenticator holds another test's too).
    () => ({ body: { options: { challenge: asked, rpId: 'localhost', userVerification: 'preferred',
      allowCredentials: [{ type: 'public-key', id: JSON.parse(calls[1].init.body).attestation.id }] } } }),
    { body: signedIn },
  ]);
  const saved = window.fetch;
  window.fetch = fake;
  try {
    const bff = createBff({ navigate: () => {} });
    equal(await bff.addPasskey(), { Message: 'Passkey registered.' }, 'enrolled');
    equal(await bff.passkeySignIn(), signedIn, 'signed in');
  } finally {
    window.fetch = saved;
  }
  const { attestation } = JSON.parse(calls[1].init.body);
  const { assertion } = JSON.parse(calls[3].init.body);
  equal([calls.length, typeof attestation.response.attestationObject, attestation.type], [4, 'string', 'public-key'], 'the attestation sent');
  equal([assertion.id, assertion.response.userHandle], [attestation.id, b64([3, 1, 4])], 'the assertion of that passkey sent');
  const clientData = (credential) => JSON.parse(new TextDecoder().decode(fromBase64url(credential.response.clientDataJSON)));
  equal([clientData(attestation).type, clientData(attestation).challenge], ['webauthn.create', created], 'the attestation answers its challenge');
  equal([clientData(assertion).type, clientData(assertion).challenge], ['webauthn.get', asked], 'the assertion answers its challenge');
});

// ---- base64url

test('base64url: known values, every byte, round trips, views, padding and bad input', async () => {
  const text = (s) => new TextEncoder().encode(s);
  equal([toBase64url(text('')), toBase64url(text('f')), toBase64url(text('fo')), toBase64url(text('foo')), toBase64url(text('foob'))],
    ['', 'Zg', 'Zm8', 'Zm9v', 'Zm9vYg'], 'RFC 4648 values');
  equal(toBase64url(new Uint8Array([0xfb, 0xff, 0xbf])), '-_-_', 'the URL alphabet');
  const every = Uint8Array.from({ length: 256 }, (_, i) => i);
  equal(bytes(fromBase64url(toBase64url(every))), bytes(every), 'every byte value');
  equal(bytes(fromBase64url(toBase64url(every.buffer))), bytes(every), 'an ArrayBuffer');
  for (let length = 0; length <= 70; length++) {
    const data = crypto.getRandomValues(new Uint8Array(length));
    const encoded = toBase64url(data);
    check(/^[A-Za-z0-9_-]*$/.test(encoded), 'no padding, URL alphabet', encoded);
    equal(bytes(fromBase64url(encoded)), bytes(data), 'round trip of ' + length + ' bytes');
  }
  const view = new Uint8Array([1, 2, 3, 4, 5, 6]).subarray(2, 5);
  equal(toBase64url(view), toBase64url(new Uint8Array([3, 4, 5])), 'a view: only its bytes');
  equal(toBase64url(new DataView(view.buffer, 1, 2)), toBase64url(new Uint8Array([2, 3])), 'a DataView');
  equal(bytes(fromBase64url('Zm8=')), bytes(text('fo')), 'padded input');
  for (const bad of ['Zm9v*', 'Z', 'Zm9vY', 'a b\u00e9']) {
    const error = await rejection((async () => fromBase64url(bad))());
    equal(error.name, 'InvalidCharacterError', 'refused: ' + JSON.stringify(bad));
  }
});
