// Known-good WebAuthn ceremonies made outside this code base, so the
// verifier is checked against an encoder and signer that are not ours:
// Python's `cryptography` (OpenSSL) for keys and signatures, `cbor2` for
// CBOR. Generated once and committed as bytes; the keys were thrown away.
//
// The ES256 registration uses `packed` self-attestation and carries an
// extension (credProtect) with the ED flag; its client data has Chrome's
// extra member. The EdDSA one uses `none` with BE and BS set. Each
// assertion carries sign count 7 and user handle "user-<name>".
//
// The generator, for the record (python3 gen_vectors.py):
//
//     # Generates the known-good WebAuthn vectors in KnownVectors.swift, with
//     # Python's `cryptography` and `cbor2` as an encoder independent of ours.
//     import base64, hashlib, json, struct
//     import cbor2
//     from cryptography.hazmat.primitives import hashes, serialization
//     from cryptography.hazmat.primitives.asymmetric import ec, ed25519
//
//     def b64u(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
//     RP = "login.example.com"; ORIGIN = "https://login.example.com"
//     UP, UV, BE, BS, AT, ED = 1, 4, 8, 16, 64, 128
//
//     def client_data(typ, challenge):
//         # Chrome's form, including the member it adds to discourage templates.
//         return json.dumps({"type": typ, "challenge": b64u(challenge), "origin": ORIGIN, "crossOrigin": False,
//                            "other_keys_can_be_added_here": "do not compare clientDataJSON against a template. See https://goo.gl/yabPex"},
//                           separators=(",", ":")).encode()
//
//     def auth_data(flags, count, attested=b"", ext=None):
//         out = hashlib.sha256(RP.encode()).digest() + bytes([flags]) + struct.pack(">I", count) + attested
//         return out + (cbor2.dumps(ext, canonical=True) if ext is not None else b"")
//
//     def vector(name, priv, cose, sign, alg, fmt, flags, ext):
//         cred_id = hashlib.sha256(name.encode()).digest()[:20]
//         aaguid = bytes(range(16))
//         attested = aaguid + struct.pack(">H", len(cred_id)) + cred_id + cbor2.dumps(cose, canonical=True)
//         reg_challenge = hashlib.sha256(b"reg-" + name.encode()).digest()
//         cdj = client_data("webauthn.create", reg_challenge)
//         ad = auth_data(flags | AT | (ED if ext else 0), 0, attested, ext)
//         stmt = {} if fmt == "none" else {"alg": alg, "sig": sign(ad + hashlib.sha256(cdj).digest())}
//         att = cbor2.dumps({"fmt": fmt, "attStmt": stmt, "authData": ad}, canonical=True)
//         reg = {"id": b64u(cred_id), "rawId": b64u(cred_id), "type": "public-key",
//                "response": {"clientDataJSON": b64u(cdj), "attestationObject": b64u(att), "transports": ["internal"]},
//                "authenticatorAttachment": "platform", "clientExtensionResults": {}}
//         get_challenge = hashlib.sha256(b"get-" + name.encode()).digest()
//         cdj2 = client_data("webauthn.get", get_challenge)
//         ad2 = auth_data(flags, 7)
//         sig2 = sign(ad2 + hashlib.sha256(cdj2).digest())
//         asr = {"id": b64u(cred_id), "rawId": b64u(cred_id), "type": "public-key",
//                "response": {"clientDataJSON": b64u(cdj2), "authenticatorData": b64u(ad2), "signature": b64u(sig2),
//                             "userHandle": b64u(b"user-" + name.encode())}}
//         print(f"// {name}: credential id {cred_id.hex()}, aaguid {aaguid.hex()}, COSE key {cbor2.dumps(cose, canonical=True).hex()}")
//         print(f"// registration challenge {reg_challenge.hex()}, assertion challenge {get_challenge.hex()}")
//         print(f"static let {name}Registration = #\"{json.dumps(reg, separators=(',', ':'))}\"#")
//         print(f"static let {name}Assertion = #\"{json.dumps(asr, separators=(',', ':'))}\"#")
//
//     p = ec.generate_private_key(ec.SECP256R1()); n = p.public_key().public_numbers()
//     vector("es256", p, {1: 2, 3: -7, -1: 1, -2: n.x.to_bytes(32, "big"), -3: n.y.to_bytes(32, "big")},
//            lambda m: p.sign(m, ec.ECDSA(hashes.SHA256())), -7, "packed", UP | UV, {"credProtect": 2})
//     e = ed25519.Ed25519PrivateKey.generate()
//     raw = e.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
//     vector("edDSA", e, {1: 1, 3: -8, -1: 6, -2: raw}, e.sign, -8, "none", UP | UV | BE | BS, None)

enum KnownVectors {
    // es256: credential id 1940c3b75770548ed1dfb15d8583322667d5d368, aaguid 000102030405060708090a0b0c0d0e0f, COSE key a50102032620012158205317ffc11565fbd4e17424cdafc3d501f44d88c702302340bddad4089f919a2e2258206e877cb9a3d2844ee13dfd4d664717e65f86a2de7c30f7184bda86fa23088b0e
    // registration challenge cca6e5f0be4b8a102e1ab3867a46d129a827c209e50b9671a03161d4eb25474e, assertion challenge cb1f1c876cf9495e0452790cb73218cf4182012f2f55ddba8d2f435bcf1347c6
    static let es256Registration = #"{"id":"GUDDt1dwVI7R37FdhYMyJmfV02g","rawId":"GUDDt1dwVI7R37FdhYMyJmfV02g","type":"public-key","response":{"clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiektibDhMNUxpaEF1R3JPR2VrYlJLYWdud2dubEM1WnhvREZoMU9zbFIwNCIsIm9yaWdpbiI6Imh0dHBzOi8vbG9naW4uZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2UsIm90aGVyX2tleXNfY2FuX2JlX2FkZGVkX2hlcmUiOiJkbyBub3QgY29tcGFyZSBjbGllbnREYXRhSlNPTiBhZ2FpbnN0IGEgdGVtcGxhdGUuIFNlZSBodHRwczovL2dvby5nbC95YWJQZXgifQ","attestationObject":"o2NmbXRmcGFja2VkZ2F0dFN0bXSiY2FsZyZjc2lnWEYwRAIgUDRiGt3i3Vdly4Wo0NgZQvqDdpPx2ClG8xmleAS3wTUCIDJMEKSR8fA4rkPNL6-Qgy8OSI1n2hV6lLi3v6NW6wjAaGF1dGhEYXRhWKYMbKCDnDpWg1V4M_YYolVmZd8qCIlkeH1ThQtK1NO-3MUAAAAAAAECAwQFBgcICQoLDA0ODwAUGUDDt1dwVI7R37FdhYMyJmfV02ilAQIDJiABIVggUxf_wRVl-9ThdCTNr8PVAfRNiMcCMCNAvdrUCJ-Rmi4iWCBuh3y5o9KETuE9_U1mRxfmX4ai3nww9xhL2ob6IwiLDqFrY3JlZFByb3RlY3QC","transports":["internal"]},"authenticatorAttachment":"platform","clientExtensionResults":{}}"#
    static let es256Assertion = #"{"id":"GUDDt1dwVI7R37FdhYMyJmfV02g","rawId":"GUDDt1dwVI7R37FdhYMyJmfV02g","type":"public-key","response":{"clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoieXg4Y2gyejVTVjRFVW5rTXR6SVl6MEdDQVM4dlZkMjZqUzlEVzg4VFI4WSIsIm9yaWdpbiI6Imh0dHBzOi8vbG9naW4uZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2UsIm90aGVyX2tleXNfY2FuX2JlX2FkZGVkX2hlcmUiOiJkbyBub3QgY29tcGFyZSBjbGllbnREYXRhSlNPTiBhZ2FpbnN0IGEgdGVtcGxhdGUuIFNlZSBodHRwczovL2dvby5nbC95YWJQZXgifQ","authenticatorData":"DGygg5w6VoNVeDP2GKJVZmXfKgiJZHh9U4ULStTTvtwFAAAABw","signature":"MEUCIQCX9sMukUWW_BXV2qH4CjJUUIU67Fnsy_sJh6bLx8LbOgIgTUntYmiJ0Kx1vxBkuHDetwusX8qnM2ZfNV1ezvaa_5U","userHandle":"dXNlci1lczI1Ng"}}"#
    // edDSA: credential id bcde918d692629711ee182fbfceef4a507cc2ca6, aaguid 000102030405060708090a0b0c0d0e0f, COSE key a40101032720062158206b7938f93468b307988460555aee5b82a1c896ea625eedf85b0de4fa1b541d52
    // registration challenge 6da035488b59f242df5d601000b47a54f1d5615d257cce9ee06a338f2e8effec, assertion challenge c232f0b423f78656f79df1e568cef72869f80cfcfda6b69d98b79ca678c54f1a
    static let edDSARegistration = #"{"id":"vN6RjWkmKXEe4YL7_O70pQfMLKY","rawId":"vN6RjWkmKXEe4YL7_O70pQfMLKY","type":"public-key","response":{"clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiYmFBMVNJdFo4a0xmWFdBUUFMUjZWUEhWWVYwbGZNNmU0R296ank2T18tdyIsIm9yaWdpbiI6Imh0dHBzOi8vbG9naW4uZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2UsIm90aGVyX2tleXNfY2FuX2JlX2FkZGVkX2hlcmUiOiJkbyBub3QgY29tcGFyZSBjbGllbnREYXRhSlNPTiBhZ2FpbnN0IGEgdGVtcGxhdGUuIFNlZSBodHRwczovL2dvby5nbC95YWJQZXgifQ","attestationObject":"o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVh1DGygg5w6VoNVeDP2GKJVZmXfKgiJZHh9U4ULStTTvtxdAAAAAAABAgMEBQYHCAkKCwwNDg8AFLzekY1pJilxHuGC-_zu9KUHzCympAEBAycgBiFYIGt5OPk0aLMHmIRgVVruW4KhyJbqYl7t-FsN5PobVB1S","transports":["internal"]},"authenticatorAttachment":"platform","clientExtensionResults":{}}"#
    static let edDSAAssertion = #"{"id":"vN6RjWkmKXEe4YL7_O70pQfMLKY","rawId":"vN6RjWkmKXEe4YL7_O70pQfMLKY","type":"public-key","response":{"clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoid2pMd3RDUDNobGIzbmZIbGFNNzNLR240RFB6OXByYWRtTGVjcG5qRlR4byIsIm9yaWdpbiI6Imh0dHBzOi8vbG9naW4uZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2UsIm90aGVyX2tleXNfY2FuX2JlX2FkZGVkX2hlcmUiOiJkbyBub3QgY29tcGFyZSBjbGllbnREYXRhSlNPTiBhZ2FpbnN0IGEgdGVtcGxhdGUuIFNlZSBodHRwczovL2dvby5nbC95YWJQZXgifQ","authenticatorData":"DGygg5w6VoNVeDP2GKJVZmXfKgiJZHh9U4ULStTTvtwdAAAABw","signature":"tpI-9Z4vgK6mn14wummePBK3J8JRRk48VUf_rDNignOlEf60ShKpZHEWNIt1TP4c7Q6lRsZL88nDuCyBx51mDQ","userHandle":"dXNlci1lZERTQQ"}}"#
}
