export { AzureOpenAIModel, type AzureOptions, azure } from "./definition.js";
