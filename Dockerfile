# The service image used by docker-compose.yml.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# The sources are not here yet: the build (the package's `prepare`) runs below, with the template of the embedded database.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY scripts ./scripts
RUN npm run build && node scripts/embeddedDatabaseTemplate.mjs && npm prune --omit=dev
ENV NODE_ENV=production
EXPOSE 3000
CMD ["node", "dist/src/main.js"]
