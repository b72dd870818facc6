import { describe, expect, it } from 'vitest';
import { guidanceConfig, isSoftwareRenderer } from './human-detector.js';

describe('guidance detector settings', () => {
  it('treats software WebGL renderers as no GPU', () => {
    expect(
      isSoftwareRenderer('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)'),
    ).toBe(true);
    expect(isSoftwareRenderer('llvmpipe (LLVM 15.0.6, 256 bits)')).toBe(true);
    expect(isSoftwareRenderer('ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)')).toBe(false);
    expect(isSoftwareRenderer('ANGLE (NVIDIA, NVIDIA GeForce GTX 1650 Direct3D11 vs_5_0 ps_5_0, D3D11)')).toBe(false);
  });

  it('loads every file from the station, light face models only', () => {
    const config = guidanceConfig('wasm', 'https://estacion:8443/modelos/');
    expect(config.modelBasePath).toBe('https://estacion:8443/modelos/human/');
    expect(config.wasmPath).toBe('https://estacion:8443/modelos/tfjs-wasm/');
    expect(JSON.stringify(config)).not.toMatch(/jsdelivr|cdn|github/i);
    const face = config.face!;
    expect([face.detector?.enabled ?? true, face.mesh?.enabled, face.iris?.enabled]).toEqual([true, true, true]);
    expect([face.description, face.emotion, face.antispoof, face.liveness].map((m) => m?.enabled)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect([config.body, config.hand, config.object, config.segmentation].map((m) => m?.enabled)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
