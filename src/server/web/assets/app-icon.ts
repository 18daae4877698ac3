// The app's icon (favicon): a small flame graph — three stacked bars on the header's dark slate,
// the widest at the bottom — drawn as SVG so one file serves every size. Pages link it; without
// it each browser asks for /favicon.ico on every page and logs the 404 as a console error.
export const APP_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f2937"/><rect x="5" y="21" width="22" height="6" rx="1" fill="#f59e0b"/><rect x="5" y="14" width="15" height="6" rx="1" fill="#fb923c"/><rect x="8" y="7" width="9" height="6" rx="1" fill="#ef4444"/></svg>
`;
