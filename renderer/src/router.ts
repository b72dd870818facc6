import { useEffect, useState } from 'react';

/** Hash routes, so the station serves one index.html and a reload keeps the screen. */
export const ROUTES = [
  'enrolar',
  'verificar',
  'identificar',
  'extraer',
  'antispoof',
  'dni',
  'galeria',
  'tokens',
  'ajustes',
  'auditoria',
] as const;
export type Route = (typeof ROUTES)[number];

function parse(hash: string): Route {
  const name = hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return (ROUTES as readonly string[]).includes(name) ? (name as Route) : 'galeria';
}

export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => parse(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parse(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
