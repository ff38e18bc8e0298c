/** The API description and the docs page, served without a key (specification part 9 of the API as a product). */
export { handler } from '../../shared/openapi/docs-handler';
