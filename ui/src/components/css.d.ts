/** Stylesheets imported for their side effect: Vite bundles them into the page's CSS. */
declare module '*.css';
