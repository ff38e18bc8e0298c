/** The API description and the docs page, served without a key (docs/api.md, "The API description"). */
export { handler } from './docs-handler';
