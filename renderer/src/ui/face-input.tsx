import { DocumentCapture, FaceCapture, type CapturedDocument, type CapturedFace } from '../capture/index.js';
import { useConsole } from '../console-context.js';

/** The capture component plus a preview of what will be sent. */
export function FaceInput({
  face,
  onFace,
  disabled,
  maxFrames,
}: {
  face: CapturedFace | null;
  onFace: (face: CapturedFace) => void;
  disabled?: boolean;
  maxFrames?: number;
}) {
  const { locale, prefs } = useConsole();
  return (
    <div className="face-input">
      <FaceCapture
        locale={locale}
        onCapture={onFace}
        disabled={disabled ?? false}
        {...(maxFrames !== undefined ? { maxFrames } : {})}
        {...(prefs.deviceId ? { deviceId: prefs.deviceId } : {})}
      />
      {face && <img className="preview" src={face.preview} alt="" data-testid="face-preview" />}
    </div>
  );
}

export function DocumentInput({ onDocument }: { onDocument: (doc: CapturedDocument) => void }) {
  const { locale, prefs } = useConsole();
  return <DocumentCapture locale={locale} onCapture={onDocument} {...(prefs.deviceId ? { deviceId: prefs.deviceId } : {})} />;
}
