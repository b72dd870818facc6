import { describe, expect, it } from 'vitest';
import { allowPermission, allowRequest, electronFingerprint, isConsoleUrl, trustCertificate } from './security.js';

const station = {
  url: 'https://127.0.0.1:8443',
  fingerprint256: '35:95:FC:61:3A:4B:FE:80:F6:09:61:82:BC:14:26:8A:82:FF:5F:7E:6A:07:61:12:E5:F9:F0:21:76:AA:CF:E3',
};

describe('desktop shell security decisions', () => {
  it('recognises only the station origin as the console', () => {
    expect(isConsoleUrl('https://127.0.0.1:8443/#/verificar', station.url)).toBe(true);
    expect(isConsoleUrl('https://127.0.0.1:9443/', station.url)).toBe(false);
    expect(isConsoleUrl('http://127.0.0.1:8443/', station.url)).toBe(false);
    expect(isConsoleUrl('https://127.0.0.1:8443.evil.example/', station.url)).toBe(false);
    expect(isConsoleUrl('not a url', station.url)).toBe(false);
  });

  it('pins the station certificate by fingerprint', () => {
    const good = electronFingerprint(station.fingerprint256);
    expect(good).toMatch(/^sha256\/[A-Za-z0-9+/]{43}=$/);
    expect(trustCertificate('https://127.0.0.1:8443/', good, station)).toBe(true);
    expect(trustCertificate('https://127.0.0.1:8443/', 'sha256/AAAA', station)).toBe(false);
    expect(trustCertificate('https://example.com/', good, station)).toBe(false);
    expect(trustCertificate('https://127.0.0.1:8443/', good, { ...station, fingerprint256: null })).toBe(false);
  });

  it('grants the camera to the console only, and nothing else', () => {
    expect(allowPermission('media', 'https://127.0.0.1:8443/', station.url, { mediaTypes: ['video'] })).toBe(true);
    expect(allowPermission('media', 'https://127.0.0.1:8443/', station.url, { mediaTypes: ['video', 'audio'] })).toBe(false);
    expect(allowPermission('media', 'https://other.example/', station.url)).toBe(false);
    for (const p of ['geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      expect(allowPermission(p, 'https://127.0.0.1:8443/', station.url)).toBe(false);
    }
  });

  it('lets the console request only its station, never the network or the disk', () => {
    expect(allowRequest('https://127.0.0.1:8443/models/x.bin', station.url)).toBe(true);
    expect(allowRequest('data:image/png;base64,AAAA', station.url)).toBe(true);
    expect(allowRequest('blob:https://127.0.0.1:8443/1234', station.url)).toBe(true);
    for (const url of ['https://cdn.example/x.js', 'file:///etc/passwd', 'http://127.0.0.1:8443/', 'ws://127.0.0.1:9/', 'x']) {
      expect(allowRequest(url, station.url)).toBe(false);
    }
  });
});
