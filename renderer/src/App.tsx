import { useState } from 'react';
import { LoginScreen } from './screens/LoginScreen.js';
import { StationScreen } from './screens/StationScreen.js';
import { clearToken, loadToken, saveToken } from './session.js';

export function App() {
  const [token, setToken] = useState<string | null>(() => loadToken());
  if (!token) {
    return (
      <LoginScreen
        onLogin={(t) => {
          saveToken(t);
          setToken(t);
        }}
      />
    );
  }
  return (
    <StationScreen
      token={token}
      onLogout={() => {
        clearToken();
        setToken(null);
      }}
    />
  );
}
