import { useEffect, useRef, useState } from 'react';

/** The camera stream in a <video>, opened on mount and stopped on unmount or device change. */
export function useCamera(deviceId: string | undefined, enabled: boolean, facingMode: 'user' | 'environment') {
  const videoRef = useRef<HTMLVideoElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [label, setLabel] = useState('');

  useEffect(() => {
    if (!enabled) return;
    let stream: MediaStream | null = null;
    let cancelled = false;
    setError(null);
    (async () => {
      try {
        if (!navigator.mediaDevices?.getUserMedia) throw new Error('getUserMedia no disponible (se requiere https)');
        stream = await navigator.mediaDevices.getUserMedia({
          audio: false,
          video: {
            ...(deviceId ? { deviceId: { exact: deviceId } } : { facingMode }),
            width: { ideal: 1280 },
            height: { ideal: 720 },
          },
        });
        if (cancelled) return stream.getTracks().forEach((t) => t.stop());
        setLabel(stream.getVideoTracks()[0]?.label ?? '');
        const video = videoRef.current;
        if (video) {
          video.srcObject = stream;
          await video.play().catch(() => undefined);
        }
      } catch (e) {
        if (!cancelled) setError(e instanceof Error ? e.message : String(e));
      }
    })();
    return () => {
      cancelled = true;
      stream?.getTracks().forEach((t) => t.stop());
    };
  }, [deviceId, enabled, facingMode]);

  return { videoRef, error, label };
}
